/* Alternating repetitions between the two processes of an ab pair (turns.h). */
#include "turns.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

typedef enum {
    NONE,      /* no pair */
    ALTERNATE, /* both take turns */
    ALONE,     /* the other side has gone, or runs as a whole before or after this one */
} mode;

static struct {
    int fd;
    mode mode;
    int holding;       /* ALTERNATE: this side has the turn */
    unsigned turns;    /* repetitions run in turn */
    int waited;        /* ALONE as the second: this side waited for the first to end */
    int ending;        /* in cb_turns_end: the other side's end of file is expected */
    const char *other; /* ALONE: why */
} t = {.fd = -1, .mode = NONE};

static int put(char c)
{
    for (;;) {
        ssize_t k = send(t.fd, &c, 1, MSG_NOSIGNAL);
        if (k == 1)
            return 0;
        if (k < 0 && errno == EINTR)
            continue;
        return -1;
    }
}

/* The other side's next byte; -1 at end of file or on an error (it has gone). */
static int get(void)
{
    for (;;) {
        unsigned char c;
        ssize_t k = recv(t.fd, &c, 1, 0);
        if (k == 1)
            return c;
        if (k < 0 && errno == EINTR)
            continue;
        return -1;
    }
}

static void alone(const char *why)
{
    t.mode = ALONE;
    if (!t.other)
        t.other = why;
}

void cb_turns_begin(int fd, int first, int alternate)
{
    if (fd < 0)
        return;
    t.fd = fd;
    (void)fcntl(fd, F_SETFD, FD_CLOEXEC); /* not handed to a program this process runs */
    int said = put(alternate ? 'R' : 'N');
    int heard = said == 0 ? get() : -1;
    if (heard == 'R' && alternate) {
        t.mode = ALTERNATE;
        t.holding = first;
        return;
    }
    if (heard < 0) {
        alone("the other side took no turns (it had ended, failed, or does not take turns)");
        return;
    }
    alone(alternate ? "the other side times itself: one after the other"
                    : "this side times itself: one after the other");
    if (!first) { /* the first runs as a whole; this side after its end */
        while (get() >= 0)
            ;
        t.waited = 1;
    }
}

void cb_turns_take(void)
{
    if (t.mode != ALTERNATE || t.holding)
        return;
    int c;
    while ((c = get()) >= 0 && c != 'T')
        ;
    if (c < 0) {
        if (!t.ending) {
            alone("the other side ended first; this side ran on alone");
        }
        t.mode = ALONE;
        return;
    }
    t.holding = 1;
}

void cb_turns_pass(void)
{
    if (t.mode != ALTERNATE || !t.holding)
        return;
    t.turns++;
    t.holding = 0;
    if (put('T') != 0) {
        alone("the other side ended first; this side ran on alone");
    }
}

void cb_turns_end(void)
{
    if (t.fd < 0)
        return;
    t.ending = 1;
    cb_turns_take();
    close(t.fd);
    t.fd = -1;
}

json_t *cb_turns_json(void)
{
    if (t.mode == NONE)
        return NULL;
    return json_pack("{s:s, s:i, s:s?}", "mode", t.turns ? "alternated" : "alone",
                     "repetitions_in_turn", (int)t.turns, "note",
                     t.waited ? "ran after the other side ended" : t.other);
}
