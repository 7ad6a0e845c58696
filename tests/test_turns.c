/* Alternating repetitions (harness/measure/turns.h): the two processes of an ab pair take turns
 * strictly, one runs as a whole before the other when a side times itself, and a side whose
 * partner has gone runs on alone. Each side writes its letter to one pipe in its turns; the
 * order the parent reads is the order the turns ran in. */
#include <jansson.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/measure/turns.h"
#include "test.h"

enum { TURNS = 6 };

/* One side in a child: joins the pair on fd, writes its letter in each of its turns (TURNS, or
 * half as many for a side that ends early), leaves; exits with the turns it says it took in turn
 * (repetitions_in_turn), plus 100 when its note says it ran on alone. */
static pid_t side(int fd, int other_fd, int out, char letter, int first, int alternate, int turns)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    close(other_fd);
    cb_turns_begin(fd, first, alternate);
    for (int i = 0; i < turns; i++) {
        cb_turns_take();
        if (write(out, &letter, 1) != 1)
            _exit(255);
        usleep(2000); /* a repetition's length: the other side, were it free, would run now */
        cb_turns_pass();
    }
    cb_turns_end();
    json_t *j = cb_turns_json();
    int taken = (int)json_integer_value(json_object_get(j, "repetitions_in_turn"));
    const char *note = json_string_value(json_object_get(j, "note"));
    _exit(taken + (note && strstr(note, "ran on alone") ? 100 : 0));
}

/* Runs a pair (a_first: A goes first; a_alt, b_alt: whether each takes turns; b_gone: B's end
 * is closed before either begins; b_turns: B's turns) and returns what the pipe got; *ta, *tb
 * what each side exited with. */
static void pair_of(int a_first, int a_alt, int b_alt, int b_gone, int b_turns, char *got,
                    int *ta, int *tb)
{
    int sp[2], p[2];
    CB_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == 0 && pipe(p) == 0);
    pid_t b = -1;
    if (b_gone)
        close(sp[1]);
    pid_t a = side(sp[0], b_gone ? -1 : sp[1], p[1], 'A', a_first, a_alt, TURNS);
    if (!b_gone)
        b = side(sp[1], sp[0], p[1], 'B', !a_first, b_alt, b_turns);
    close(sp[0]);
    if (!b_gone)
        close(sp[1]);
    close(p[1]);
    size_t n = 0;
    for (ssize_t k; n < 2 * TURNS && (k = read(p[0], got + n, 2 * TURNS - n)) > 0;)
        n += (size_t)k;
    got[n] = '\0';
    close(p[0]);
    int st;
    CB_CHECK(waitpid(a, &st, 0) == a && WIFEXITED(st));
    *ta = WEXITSTATUS(st);
    *tb = 0;
    if (b > 0) {
        CB_CHECK(waitpid(b, &st, 0) == b && WIFEXITED(st));
        *tb = WEXITSTATUS(st);
    }
}

static void pair(int a_first, int a_alt, int b_alt, int b_gone, char *got, int *ta, int *tb)
{
    pair_of(a_first, a_alt, b_alt, b_gone, TURNS, got, ta, tb);
}

CB_TEST(turns_alternate_strictly)
{
    char got[2 * TURNS + 1];
    int ta, tb;
    pair(1, 1, 1, 0, got, &ta, &tb);
    CB_CHECK_STREQ(got, "ABABABABABAB");
    CB_CHECK_EQ_INT(ta, TURNS);
    CB_CHECK_EQ_INT(tb, TURNS);
    pair(0, 1, 1, 0, got, &ta, &tb);
    CB_CHECK_STREQ(got, "BABABABABABA");
}

/* A side that times itself ('N': a language's runtime, an external program) runs as a whole:
 * first when it is first, else after the other has ended; never at the same time. */
CB_TEST(turns_one_side_times_itself)
{
    char got[2 * TURNS + 1];
    int ta, tb;
    pair(1, 1, 0, 0, got, &ta, &tb);
    CB_CHECK_STREQ(got, "AAAAAABBBBBB");
    CB_CHECK_EQ_INT(ta, 0);
    CB_CHECK_EQ_INT(tb, 0);
    pair(0, 1, 0, 0, got, &ta, &tb);
    CB_CHECK_STREQ(got, "BBBBBBAAAAAA");
}

/* A partner gone before the start (it failed, or is a build that never speaks and has ended)
 * frees this side at once: it runs alone and says so. */
CB_TEST(turns_partner_gone_runs_alone)
{
    char got[2 * TURNS + 1];
    int ta, tb;
    pair(0, 1, 1, 1, got, &ta, &tb);
    CB_CHECK_STREQ(got, "AAAAAA");
    CB_CHECK_EQ_INT(ta, 0);
}

/* A side that has run all its repetitions leaves; the other runs its rest alone, after the
 * turns they shared, and says so; the one that left does not. */
CB_TEST(turns_partner_ends_first)
{
    char got[2 * TURNS + 1];
    int ta, tb;
    pair_of(1, 1, 1, 0, TURNS / 2, got, &ta, &tb);
    CB_CHECK_STREQ(got, "ABABABAAA");
    CB_CHECK_EQ_INT(ta, TURNS / 2 + 1 + 100); /* its turns before B left, then alone */
    CB_CHECK_EQ_INT(tb, TURNS / 2);
}
