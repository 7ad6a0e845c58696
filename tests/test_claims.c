/* The report's claims on known outcomes: every claim of the claims table (a file of
 * harness/report/claims/ each) has fixtures in tests/claims/<id>/, small results files named
 * <verdict>-<what>.json, each giving that verdict; together they reach every verdict the claim's
 * rule can give, "not measured" among them. The number of claims comes from the table. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/common/build.h"
#include "harness/common/cli.h"
#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "harness/report/claims.h"
#include "harness/results/load.h"
#include "harness/run/options.h"
#include "harness/run/plan.h"
#include "test.h"

/* The verdict a fixture's name promises ("not_measured-x.json": not measured); CB_VERDICTS when
 * the name starts with none. */
static cb_verdict named_verdict(const char *file)
{
    for (int v = 0; v < CB_VERDICTS; v++) {
        char want[32];
        snprintf(want, sizeof want, "%s-", cb_verdict_name((cb_verdict)v));
        for (char *s = want; *s; s++)
            *s = *s == ' ' ? '_' : *s;
        if (!strncmp(file, want, strlen(want)))
            return (cb_verdict)v;
    }
    return CB_VERDICTS;
}

/* The fixture, read as report reads results (the schema set to this build's: a fixture is
 * about the claims, not the schema's version). */
static json_t *load_fixture(const char *path)
{
    json_error_t err;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    if (!doc)
        CB_FAIL("%s: %s at line %d", path, err.text, err.line);
    json_object_set_new(doc, "schema", json_string(CB_SCHEMA));
    cb_error e;
    if (cb_results_check(doc, path, &e))
        CB_FAIL("%s: not a valid results document: %s", path, e.msg);
    return doc;
}

/* The claims section on doc, as report writes it without plots, in *text (free() it). */
static void section_text(json_t *doc, char **text)
{
    size_t len = 0;
    FILE *out = open_memstream(text, &len);
    CB_CHECK(out != NULL);
    cb_claims_section(out, doc, NULL, NULL, CB_CLAIMS_ALL);
    fclose(out);
}

/* The whole section on the fixture, with the claim's verdict in its summary row. */
static void check_section(json_t *doc, size_t k, cb_verdict v, const char *path)
{
    char *text = NULL, row[64];
    section_text(doc, &text);
    CB_CHECK_CONTAINS(text, "\n## Caveats\n");
    snprintf(row, sizeof row, "\n- %zu. **%s**: ", k + 1, cb_verdict_name(v));
    if (!strstr(text, row))
        CB_FAIL("%s: the claims' list lacks '%s'", path, row + 1);
    /* No figure printed as printf's non-finite spellings ("nan", "inf%" was claim 2's open
     * upper bound): a claim says in words what has no value. */
    /* No placeholder left in a claim's sentence (claim 12's heading read "at a cost of X per
     * call"). */
    if (strstr(text, " X "))
        CB_FAIL("%s: a placeholder ' X ' in the claims: ...%.60s", path,
                strstr(text, " X ") - (strstr(text, " X ") - text > 40 ? 40 : 0));
    /* A cost per call is not negative, nor its interval (claim 12's noisy fixture gave
     * [-199.8, 281.1]). */
    for (const char *p = text; (p = strstr(p, " ns per call [")); p++)
        if (strtod(p + strlen(" ns per call ["), NULL) < 0)
            CB_FAIL("%s: a cost per call below zero: ...%.60s", path, p);
    static const char *const bad[] = {"nan", "inf%", "inf]", "infx"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (strstr(text, bad[i]))
            CB_FAIL("%s: the claims print '%s': ...%.60s", path, bad[i],
                    strstr(text, bad[i]) - (strstr(text, bad[i]) - text > 40 ? 40 : 0));
    free(text);
}

CB_TEST(claims_fixtures)
{
    size_t n = cb_claims_count();
    CB_CHECK(n > 0);
    char dir[256], path[600];
    for (size_t k = 0; k < n; k++) {
        const char *id = cb_claims_id(k);
        snprintf(dir, sizeof dir, "tests/claims/%s", id); /* the sources' (tests run there) */
        DIR *d = opendir(dir);
        if (!d)
            CB_FAIL("claim %zu (%s) has no fixtures in %s", k + 1, id, dir);
        unsigned seen = 0, allowed = cb_claims_verdicts(k);
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t len = strlen(e->d_name);
            if (e->d_name[0] == '.')
                continue;
            if (len < 6 || strcmp(e->d_name + len - 5, ".json"))
                CB_FAIL("%s/%s: a fixture is a .json file", dir, e->d_name);
            cb_verdict want = named_verdict(e->d_name);
            if (want == CB_VERDICTS)
                CB_FAIL("%s/%s: the name starts with no verdict (supported-, contradicted-, "
                        "inconclusive-, not_measured-)",
                        dir, e->d_name);
            if (!(allowed & 1u << want))
                CB_FAIL("%s/%s: claim %zu's rule cannot give %s", dir, e->d_name, k + 1,
                        cb_verdict_name(want));
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            json_t *doc = load_fixture(path);
            cb_verdict got = cb_claims_verdict(doc, k);
            if (got != want)
                CB_FAIL("%s: claim %zu (%s) gives %s, the name says %s", path, k + 1, id,
                        cb_verdict_name(got), cb_verdict_name(want));
            check_section(doc, k, want, path);
            json_decref(doc);
            seen |= 1u << want;
        }
        closedir(d);
        for (int v = 0; v < CB_VERDICTS; v++)
            if ((allowed & 1u << v) && !(seen & 1u << v))
                CB_FAIL("claim %zu (%s): no fixture gives %s", k + 1, id,
                        cb_verdict_name((cb_verdict)v));
        if (!(allowed & 1u << CB_NOT_MEASURED))
            CB_FAIL("claim %zu (%s): its rule must say when the data are missing", k + 1, id);
    }
    /* No fixtures for a claim the table no longer has. */
    snprintf(dir, sizeof dir, "tests/claims");
    DIR *d = opendir(dir);
    CB_CHECK(d != NULL);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        size_t k = 0;
        while (k < n && strcmp(cb_claims_id(k), e->d_name))
            k++;
        if (k == n)
            CB_FAIL("%s/%s: no claim has this id", dir, e->d_name);
    }
    closedir(d);
}

/* The table the claims' files register is whole: numbered 1..N in order, each id once. */
CB_TEST(claims_table_numbered)
{
    size_t n = cb_claims_count();
    CB_CHECK(n > 0);
    for (size_t k = 0; k < n; k++) {
        if (cb_claims_number(k) != (int)k + 1)
            CB_FAIL("claim '%s' has number %d where the table's %zuth is: numbers run 1..%zu, "
                    "each once",
                    cb_claims_id(k), cb_claims_number(k), k + 1, n);
        for (size_t j = 0; j < k; j++)
            if (!strcmp(cb_claims_id(j), cb_claims_id(k)))
                CB_FAIL("claims %zu and %zu share the id '%s'", j + 1, k + 1, cb_claims_id(k));
    }
}

/* Every command a claim suggests ("To measure it: ...") is one run takes: parsed by run's own
 * parser and planned by its planner, with at least one cell. */
CB_TEST(claims_commands_parse)
{
    for (size_t k = 0; k < cb_claims_count(); k++) {
        char cmd[512], copy[512], *argv[64], *save = NULL;
        cb_claims_command(k, cmd, sizeof cmd);
        snprintf(copy, sizeof copy, "%s", cmd);
        int argc = 0;
        for (char *t = strtok_r(copy, " ", &save); t && argc < 63; t = strtok_r(NULL, " ", &save))
            argv[argc++] = t;
        argv[argc] = NULL;
        if (argc < 2 || strcmp(argv[0], "corobench") || strcmp(argv[1], "run"))
            CB_FAIL("claim %zu (%s): '%s' is not a corobench run", k + 1, cb_claims_id(k), cmd);
        cb_run_opts o;
        if (cb_run_opts_parse(argc - 1, argv + 1, &o) != CB_OPTS_PARSED)
            CB_FAIL("claim %zu (%s): run's parser refuses '%s' (its line above)", k + 1,
                    cb_claims_id(k), cmd);
        /* The variant builds are looked up beside the running binary, the test runner here,
         * which has none beside it: the plan names them unchecked. */
        o.binaries_unchecked = 1;
        cb_plan plan;
        if (cb_plan_build(&o, &plan) != CB_OPTS_PARSED)
            CB_FAIL("claim %zu (%s): run's plan refuses '%s' (its line above)", k + 1,
                    cb_claims_id(k), cmd);
        if (!plan.ncells)
            CB_FAIL("claim %zu (%s): '%s' plans no cell", k + 1, cb_claims_id(k), cmd);
        cb_plan_free(&plan);
    }
}

/* The claims take an implementation's facts from the file (impl_row), not from the reading
 * build's table: hooks' supported fixture with asm renamed to a name this build does not know,
 * whose row says it is first in the stackful order, gives the same verdict (the list of
 * stackful names in claims.c ignored it: not measured); and a language's row makes a cell's
 * implementation a language whatever its name. */
CB_TEST(claims_rows_from_the_file)
{
    const char *path = "tests/claims/hooks/supported-3pct.json";
    json_t *doc = load_fixture(path), *cell;
    size_t i, k = 0;
    while (k < cb_claims_count() && strcmp(cb_claims_id(k), "hooks"))
        k++;
    CB_CHECK(k < cb_claims_count());
    json_array_foreach(json_object_get(doc, "cells"), i, cell)
    {
        json_object_set_new(cell, "impl", json_string("newswitch"));
        json_object_set_new(cell, "impl_row",
                            json_pack("{s:s, s:i, s:[], s:{}}", "kind", "corobench",
                                      "stackful_order", 1, "lacks", "defaults"));
    }
    cb_error e;
    if (cb_results_check(doc, path, &e))
        CB_FAIL("%s with impl_row: not a valid results document: %s", path, e.msg);
    CB_CHECK_STREQ(cb_verdict_name(cb_claims_verdict(doc, k)), "supported");
    /* Without a place in the stackful order, no implementation is taken. */
    json_array_foreach(json_object_get(doc, "cells"), i, cell)
        json_object_del(json_object_get(cell, "impl_row"), "stackful_order");
    CB_CHECK_STREQ(cb_verdict_name(cb_claims_verdict(doc, k)), "not measured");
    json_decref(doc);
}

/* Which parameters are the implementation's, and at their defaults, is the file's
 * (impl_row.defaults): a cell of an implementation this build does not know hides its stack at
 * the default and shows it elsewhere; a file without impl_row falls back on this build's row. */
CB_TEST(cell_defaults_from_the_file)
{
    json_t *cell = json_pack("{s:s, s:{s:i, s:i}, s:{s:s, s:[], s:{s:i}}}", "impl", "newswitch",
                             "params", "depth", 0, "stack", 65536, "impl_row", "kind", "peer",
                             "lacks", "defaults", "stack", 65536);
    char text[128];
    cb_cell_params_text(cell, 1, text, sizeof text);
    CB_CHECK_STREQ(text, "depth=0");
    json_object_set_new(json_object_get(cell, "params"), "stack", json_integer(8192));
    cb_cell_params_text(cell, 1, text, sizeof text);
    CB_CHECK_STREQ(text, "depth=0 stack=8192");
    cb_cell_params_text(cell, 0, text, sizeof text);
    CB_CHECK_STREQ(text, "depth=0");
    /* today's files: asm's row in this build */
    json_object_set_new(cell, "impl", json_string("asm"));
    json_object_del(cell, "impl_row");
    json_object_set_new(json_object_get(cell, "params"), "stack", json_integer(65536));
    cb_cell_params_text(cell, 1, text, sizeof text);
    CB_CHECK_STREQ(text, "depth=0");
    json_decref(cell);
}

/* Claim k's part of the claims section on doc: from its heading to the next (free() it). */
static char *claim_text(json_t *doc, size_t k)
{
    char *text = NULL, head[32];
    section_text(doc, &text);
    snprintf(head, sizeof head, "\n### %d. ", cb_claims_number(k));
    char *at = strstr(text, head);
    if (!at)
        CB_FAIL("no heading '%s' in the claims section", head + 1);
    char *end = strstr(at + 1, "\n### ");
    if (end)
        *end = '\0';
    memmove(text, at, strlen(at) + 1);
    return text;
}

static size_t claim_index(const char *id)
{
    size_t k = 0;
    while (k < cb_claims_count() && strcmp(cb_claims_id(k), id))
        k++;
    if (k == cb_claims_count())
        CB_FAIL("no claim '%s' in the table", id);
    return k;
}

/* Claim 24 names the runtimes it lacks from its pairs' rows, by their names in cb_impls[]: with
 * one runtime's cells gone, the pairs it is in are "Not measured" (and the others decided);
 * with no pair, the sentence names every pair the thread opposes, a group at a time, as it
 * read when the list was prose. */
CB_TEST(claims_stackless_memory_names_missing_runtimes)
{
    size_t k = claim_index("stackless-memory");
    const char *go = cb_impl_name(CB_IMPL_GO);
    json_t *doc = load_fixture("tests/claims/stackless-memory/supported-every-pair.json");
    json_t *cells = json_object_get(doc, "cells");
    for (size_t i = json_array_size(cells); i-- > 0;)
        if (!strcmp(cb_str(json_array_get(cells, i), "impl"), go))
            json_array_remove(cells, i);
    char want[512], *text = claim_text(doc, k);
    snprintf(want, sizeof want, "Not measured: %s / %s, %s / %s.", cb_impl_name(CB_IMPL_CSHARP),
             go, cb_impl_name(CB_IMPL_NODE), go);
    CB_CHECK_CONTAINS(text, want);
    CB_CHECK_CONTAINS(text, "8 measured pairs");
    CB_CHECK_STREQ(cb_verdict_name(cb_claims_verdict(doc, k)), "supported");
    free(text);
    json_decref(doc);

    doc = load_fixture("tests/claims/stackless-memory/not_measured-stackful-only.json");
    text = claim_text(doc, k);
#define N(id) cb_impl_name(CB_IMPL_##id)
    snprintf(want, sizeof want,
             "implementation the thread opposes (%s and %s, %s and %s, %s and %s or %s, %s, %s or "
             "%s and %s or %s) at one n in one file",
             N(CSHARP), N(GO), N(NODE), N(GO), N(CSHARP), N(LUA), N(LUAJIT), N(SM), N(CLOSURE),
             N(CXX20), N(ASM), N(FCONTEXT));
#undef N
    CB_CHECK_CONTAINS(text, want);
    free(text);
    json_decref(doc);
}

/* Claim 14's table leaves out a column no row has a figure in (issue 32 item 8: its K=10 and
 * K=100 columns were all "-"): on a fixture with suspend_every=never and =1 only, the columns
 * are K=1, never and the heap allocations; at never alone, K=1 goes too; every row has as many
 * cells as the heading. */
CB_TEST(claims_await_table_without_empty_columns)
{
    size_t k = claim_index("await");
    static const struct {
        const char *fixture, *head;
    } cases[] = {
        {"tests/claims/await/supported-sm-as-fast.json",
         "| implementation | K=1 | never | heap allocations per call (never) |\n"},
        {"tests/claims/await/contradicted-2x.json",
         "| implementation | never | heap allocations per call (never) |\n"},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        json_t *doc = load_fixture(cases[t].fixture);
        char *text = claim_text(doc, k), *head = strstr(text, "| implementation |");
        CB_CHECK(head != NULL);
        CB_CHECK(!strncmp(head, cases[t].head, strlen(cases[t].head)));
        size_t cols = 0, rows = 0;
        for (const char *p = head; *p != '\n'; p++)
            cols += *p == '|';
        for (char *line = head; line && *line == '|'; line = strchr(line, '\n'), line += !!line) {
            size_t bars = 0;
            for (const char *p = line; *p && *p != '\n'; p++)
                bars += *p == '|';
            CB_CHECK_EQ_INT(bars, cols);
            rows++;
        }
        CB_CHECK(rows >= 4); /* heading, rule, two implementations */
        free(text);
        json_decref(doc);
    }
}

/* The Caveats group what concerns the same files (issue 32 item 8: the load average and the
 * build flags were repeated once per file): four files of one build, a warning all have and
 * one only file 2 has, file 3 with other repetitions. The shared warning and the build are said
 * once; file 2's warning on file 2's line; files 1 and 4, alike, on one line. */
CB_TEST(report_caveats_grouped_by_file)
{
    json_t *base = load_fixture("tests/claims/await/supported-sm-as-fast.json");
    char path[4][256];
    for (size_t k = 0; k < 4; k++) {
        json_t *d = json_deep_copy(base), *ws = json_array();
        json_array_append_new(ws, json_string("a warning of every file"));
        if (k == 1)
            json_array_append_new(ws, json_string("a warning of file two alone"));
        json_object_set_new(json_object_get(json_object_get(d, "machine"), "environment"),
                            "warnings", ws);
        if (k == 2)
            json_object_set_new(json_object_get(d, "run"), "reps", json_integer(5));
        char name[64];
        snprintf(name, sizeof name, "caveats-%zu.json", k);
        cb_test_tmp_path(path[k], sizeof path[k], name);
        CB_CHECK(json_dump_file(d, path[k], 0) == 0);
        json_decref(d);
    }
    json_decref(base);
    cb_test_cli c =
        cb_test_corobench("report", path[0], path[1], path[2], path[3], "--no-plots", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    char *cav = strstr(c.out, "\n## Caveats\n"), *end = cav ? strstr(cav, "\n## Claims") : NULL;
    CB_CHECK(cav && end);
    *end = '\0';
    /* the report wraps long lines: read them whole */
    for (char *p; (p = strstr(cav, "\n  "));) {
        memmove(p, p + 2, strlen(p + 2) + 1);
        *p = ' ';
    }
    const char *once[] = {"a warning of every file", "`-O2`", "a warning of file two alone"};
    for (size_t k = 0; k < 3; k++) {
        const char *at = strstr(cav, once[k]);
        if (!at || strstr(at + 1, once[k]))
            CB_FAIL("'%s' is not in the Caveats once:\n%s", once[k], cav);
    }
    CB_CHECK_CONTAINS(cav, "\n- Environment: a warning of every file.\n");
    CB_CHECK_CONTAINS(cav, "\n- Build of every file: gcc (fixture), `-O2`.\n");
    char *two = strstr(cav, "\n- File 2 (");
    CB_CHECK(two != NULL);
    CB_CHECK(strstr(two, "a warning of file two alone") < strstr(two + 1, "\n- "));
    CB_CHECK_CONTAINS(cav, "\n- Files 1 and 4 (");
    CB_CHECK_CONTAINS(cav, "\n- File 3 (");
    free(c.out);
    free(c.err);
    for (size_t k = 0; k < 4; k++)
        unlink(path[k]);
}

/* ---- One figure per point (issue 32 item 4) and the headline plot (item 7) ---- */

static void scale_array(json_t *a, double k)
{
    json_t *v;
    size_t i;
    json_array_foreach(a, i, v) json_array_set_new(a, i, json_real(json_number_value(v) * k));
}

/* Every time of a cell (ns_per_op's, its samples, each invocation's) times k. */
static void scale_cell(json_t *cell, double k)
{
    json_t *ns = json_object_get(cell, "ns_per_op"), *v, *inv;
    const char *key;
    size_t i;
    json_object_foreach(ns, key, v) if (json_is_real(v))
        json_object_set_new(ns, key, json_real(json_real_value(v) * k));
    scale_array(json_object_get(cell, "samples_ns_per_op"), k);
    json_array_foreach(json_object_get(cell, "invocations"), i, inv)
        scale_array(json_object_get(inv, "samples_ns_per_op"), k);
}

/* A second file of claim 10's fixture (pingpong, asm and sm at depth 0 and 16) measuring depth 16
 * alone, differently: sm 1.25x slower, asm 0.9x, and closure beside them (more cells at the
 * point than the first file has: the Summary took its file, at a glance the first). With
 * invocations above the fixture's 3, its run and its cells have that many. */
static void second_file(const char *from, const char *path, int invocations)
{
    json_t *d = load_fixture(from), *cells = json_object_get(d, "cells"), *sm = NULL;
    for (size_t i = json_array_size(cells); i-- > 0;) {
        json_t *c = json_array_get(cells, i);
        if (json_integer_value(json_object_get(json_object_get(c, "params"), "depth")) != 16) {
            json_array_remove(cells, i);
            continue;
        }
        int is_sm = !strcmp(cb_str(c, "impl"), cb_impl_name(CB_IMPL_SM));
        scale_cell(c, is_sm ? 1.25 : 0.9);
        if (is_sm)
            sm = c;
    }
    CB_CHECK(sm != NULL && json_array_size(cells) == 2);
    json_t *cl = json_deep_copy(sm);
    json_object_set_new(cl, "impl", json_string(cb_impl_name(CB_IMPL_CLOSURE)));
    scale_cell(cl, 1.5);
    json_array_append_new(cells, cl);
    json_t *c;
    size_t i;
    json_array_foreach(cells, i, c)
    {
        json_t *invs = json_object_get(c, "invocations");
        for (size_t k = 0; (int)json_array_size(invs) < invocations; k++)
            json_array_append_new(invs, json_deep_copy(json_array_get(invs, k)));
    }
    if (invocations > 3)
        json_object_set_new(json_object_get(d, "run"), "invocations", json_integer(invocations));
    CB_CHECK(json_dump_file(d, path, 0) == 0);
    json_decref(d);
}

/* The line of text starting with prefix after the first line that starts with section, in buf
 * (without its newline). */
static const char *line_after(const char *text, const char *section, const char *prefix,
                              char *buf, size_t len)
{
    char want[256];
    snprintf(want, sizeof want, "\n%s", section);
    const char *s = strstr(text, want);
    if (!s)
        CB_FAIL("no '%s' in the report:\n%s", section, text);
    snprintf(want, sizeof want, "\n%s", prefix);
    const char *l = strstr(s + 1, want);
    if (!l)
        CB_FAIL("no line '%s' after '%s':\n%s", prefix, section, s);
    snprintf(buf, len, "%.*s", (int)strcspn(l + 1, "\n"), l + 1);
    return buf;
}

/* Every line starting with prefix between the line starting with section and the next heading,
 * joined by a space into buf: a table row and its continuations, when the report split a table
 * too wide into tables of the same rows (each repeating the row's name). */
static const char *rows_after(const char *text, const char *section, const char *prefix,
                              char *buf, size_t len)
{
    char want[256];
    snprintf(want, sizeof want, "\n%s", section);
    const char *s = strstr(text, want);
    if (!s)
        CB_FAIL("no '%s' in the report:\n%s", section, text);
    s = strchr(s + 1, '\n');
    const char *end = s ? strstr(s, "\n#") : NULL;
    if (!end)
        end = s + strlen(s);
    buf[0] = '\0';
    snprintf(want, sizeof want, "\n%s", prefix);
    for (const char *l = s; l && (l = strstr(l, want)) && l < end; l++)
        cb_append(buf, len, "%s%.*s", *buf ? " " : "", (int)strcspn(l + 1, "\n"), l + 1);
    if (!*buf)
        CB_FAIL("no line '%s' after '%s':\n%.*s", prefix, section, (int)(end - s), s);
    return buf;
}

/* The first ratio with its interval in line, "2.00x [1.97, 2.03]", into buf. */
static const char *ratio_of(const char *line, char *buf, size_t len)
{
    for (const char *p = line; (p = strstr(p, "x [")); p++) {
        const char *b = p, *e = strchr(p, ']');
        while (b > line && (isdigit((unsigned char)b[-1]) || b[-1] == '.'))
            b--;
        if (b < p && e) {
            snprintf(buf, len, "%.*s", (int)(e + 1 - b), b);
            return buf;
        }
    }
    CB_FAIL("no ratio with an interval in '%s'", line);
}

/* The figure after " name " in line: claim 10's "asm 40.0 ns", at a glance's "asm 40.0 ±0.1". */
static double fig_after(const char *line, const char *name)
{
    char want[64];
    snprintf(want, sizeof want, " %s ", name);
    const char *p = strstr(line, want);
    if (!p)
        CB_FAIL("no '%s' in '%s'", want, line);
    return strtod(p + strlen(want), NULL);
}

/* The figure of the table cell in column col (from 1) of a table row. */
static double column_fig(const char *row, size_t col)
{
    const char *p = row;
    for (size_t k = 0; k < col && p; k++)
        p = strchr(p + 1, '|');
    if (!p)
        CB_FAIL("row '%s' has no column %zu", row, col);
    return strtod(p + 1, NULL);
}

/* Every section's figure of the point depth=16 in the report of a and b: the ratio the Summary,
 * claim 10 and at a glance give is one text; asm's and sm's times are one figure in claim 10,
 * at a glance and the appendix (each to its precision), and the figure expected. */
static void one_figure(const char *text, double asm_ns, double sm_ns)
{
    char line[1024], r[3][96];
    const char *asm_name = cb_impl_name(CB_IMPL_ASM), *sm_name = cb_impl_name(CB_IMPL_SM);
    /* the Summary's typical point is depth=16 (the larger of the two ratios) */
    ratio_of(rows_after(text, "## Summary", "| pingpong | 2 |", line, sizeof line), r[0],
             sizeof r[0]);
    CB_CHECK_CONTAINS(line, " at depth=16 |");
    ratio_of(rows_after(text, "### 10. ", "| pingpong | depth=16", line, sizeof line), r[1],
             sizeof r[1]);
    double c10[2] = {fig_after(line, asm_name), fig_after(line, sm_name)};
    ratio_of(rows_after(text, "## pingpong at a glance", "| depth=16 |", line, sizeof line), r[2],
             sizeof r[2]);
    double gl[2] = {fig_after(line, asm_name), fig_after(line, sm_name)};
    CB_CHECK_STREQ(r[1], r[0]);
    CB_CHECK_STREQ(r[2], r[0]);
    /* the appendix: "| point | asm | sm | closure |" */
    line_after(text, "### pingpong", "| point |", line, sizeof line);
    CB_CHECK(!strncmp(line, "| point | asm | sm | closure |", 30));
    line_after(text, "### pingpong", "| depth=16 ", line, sizeof line);
    double ap[2] = {column_fig(line, 1), column_fig(line, 2)};
    double want[2] = {asm_ns, sm_ns};
    for (int k = 0; k < 2; k++) {
        if (fabs(c10[k] - want[k]) > 0.06 || fabs(gl[k] - want[k]) > 0.06 ||
            fabs(ap[k] - want[k]) > 0.06)
            CB_FAIL("%s at depth=16: claim 10 %g, at a glance %g, the appendix %g; want %g",
                    k ? sm_name : asm_name, c10[k], gl[k], ap[k], want[k]);
    }
}

/* Item 4: two files of one machine measure pingpong depth=16 differently (the second with a
 * third implementation there). With as many invocations in each, every section takes the first
 * file's figures (given first); with more invocations in the second, the second's. Before, the
 * Summary and claim 10 took the file with the most cells at the point and at a glance the first
 * file's cells: 1.44x against 2.00x. The report names the file each such point takes. */
/* The fixture as this build's results file at path (load_fixture: the schema set to this
 * build's), for `corobench report`. */
static void fixture_file(const char *from, const char *path)
{
    json_t *d = load_fixture(from);
    CB_CHECK(json_dump_file(d, path, 0) == 0);
    json_decref(d);
}

CB_TEST(report_one_figure_per_point)
{
    const char *fixture = "tests/claims/models/supported-each-wins.json";
    char base[256], b3[256], b5[256];
    cb_test_tmp_path(base, sizeof base, "fig-a.json");
    cb_test_tmp_path(b3, sizeof b3, "fig-b3.json");
    cb_test_tmp_path(b5, sizeof b5, "fig-b5.json");
    fixture_file(fixture, base);
    second_file(fixture, b3, 3);
    second_file(fixture, b5, 5);
    static const struct {
        const char *second, *from;
        double asm_ns, sm_ns;
    } cases[] = {{"b3", "from file 1 (", 40.0, 20.0}, {"b5", "from file 2 (", 36.0, 25.0}};
    for (size_t t = 0; t < 2; t++) {
        cb_test_cli c = cb_test_corobench("report", base, t ? b5 : b3, "--no-plots", NULL);
        CB_CHECK_EQ_INT(c.status, 0);
        cb_test_md_unwrap(c.out);
        one_figure(c.out, cases[t].asm_ns, cases[t].sm_ns);
        char line[2048];
        line_after(c.out, "- results: ", "- one figure per point: 1 point was measured",
                   line, sizeof line);
        CB_CHECK_CONTAINS(line, cases[t].from);
        CB_CHECK_CONTAINS(line, " pingpong depth=16");
        /* closure, in the second file alone, says so where the first file's figures are */
        line_after(c.out, "### pingpong", "| depth=16 ", line, sizeof line);
        if (t == 0)
            CB_CHECK_CONTAINS(line, "(file 2)");
        else
            CB_CHECK(!strstr(line, "(file "));
        free(c.out);
        free(c.err);
    }
    unlink(base);
    unlink(b3);
    unlink(b5);
}

/* Item 7: the headline plot right under the Summary's table, in the Markdown and the HTML; its
 * data a row per Summary point (per workload as many as the Summary counts, the typical ratio
 * among them, the range their least and largest). */
CB_TEST_T(report_headline_plot, 120)
{
    if (system("command -v gnuplot >/dev/null 2>&1") != 0)
        CB_SKIP("gnuplot not installed");
    const char *fixture = "tests/claims/models/supported-each-wins.json";
    char base[256], b[256], md[256], html[256], dat[512];
    cb_test_tmp_path(base, sizeof base, "head-a.json");
    fixture_file(fixture, base);
    cb_test_tmp_path(b, sizeof b, "head-b.json");
    cb_test_tmp_path(md, sizeof md, "head.md");
    cb_test_tmp_path(html, sizeof html, "headh.html");
    second_file(fixture, b, 3);
    cb_test_cli c = cb_test_corobench("report", base, b, "-o", md, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    free(c.out);
    free(c.err);
    char *text = cb_test_slurp(md);
    const char *s = strstr(text, "\n## Summary\n"), *row = s ? strstr(s, "\n| pingpong | ") : NULL;
    CB_CHECK(row != NULL);
    /* the table's end, then the plot */
    const char *end = row + 1;
    while (*end == '|')
        end = strchr(end, '\n') + 1;
    if (strncmp(end, "\n![headline](<", 14))
        CB_FAIL("no headline plot under the Summary's table: %.200s", end);
    const char *eol = strchr(end + 1, '\n');
    CB_CHECK(eol && memmem(end, (size_t)(eol - end), "-plots/headline.png>)", 21) &&
             memmem(end, (size_t)(eol - end), "-plots/headline.svg>)", 21));
    /* the Summary's row: points, typical, range */
    char line[1024], typ[96];
    line_after(s, "## Summary", "| pingpong | ", line, sizeof line);
    unsigned points = 0;
    CB_CHECK(sscanf(line, "| pingpong | %u |", &points) == 1 && points == 2);
    ratio_of(line, typ, sizeof typ);
    const char *range = strrchr(line, '|');
    while (range > line && range[-1] != '|')
        range--;
    char lohi[64];
    snprintf(lohi, sizeof lohi, "%.*s", (int)(strrchr(line, '|') - range), range);
    /* the data: one block, a row per point, the Summary's figures */
    snprintf(dat, sizeof dat, "%.*s-plots/headline-0.dat", (int)(strlen(md) - 3), md);
    char *data = cb_test_slurp(dat);
    CB_CHECK_CONTAINS(data, "\n\"pingpong\"\n# row ratio lo hi won stackful stackless point\n");
    double lo = INFINITY, hi = 0;
    unsigned rows = 0, typical = 0;
    for (char *l = strstr(data, "# row "); (l = strchr(l, '\n')) && l[1]; rows++) {
        double r, a, z;
        int won;
        char sf[64], sl[64], pt[128];
        l++;
        if (sscanf(l, "%*u %lf %lf %lf %d %63s %63s %127s", &r, &a, &z, &won, sf, sl, pt) != 7)
            CB_FAIL("a headline data row not as its header says: %.100s", l);
        char text3[96];
        snprintf(text3, sizeof text3, "%.2fx [%.2f, %.2f]", r, a, z);
        typical += !strcmp(text3, typ);
        lo = fmin(lo, r), hi = fmax(hi, r);
        CB_CHECK(!strncmp(pt, "pingpong:depth=", 15));
        CB_CHECK_STREQ(sf, cb_impl_name(CB_IMPL_ASM));
    }
    CB_CHECK_EQ_INT(rows, points);
    CB_CHECK_EQ_INT(typical, 1);
    char want[64];
    snprintf(want, sizeof want, " %.2gx .. %.2gx ", lo, hi);
    CB_CHECK_STREQ(lohi, want);
    free(data);
    /* the HTML: the plot inline between the Summary's heading and the Caveats' */
    c = cb_test_corobench("report", base, b, "-o", html, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    free(c.out);
    free(c.err);
    char *page = cb_test_slurp(html);
    const char *hs = strstr(page, "<h2 id=\"summary\">"), *hc = strstr(page, "<h2 id=\"caveats\">"),
               *fig = strstr(page, "<figure id=\"plot-headline\">\n<svg");
    CB_CHECK(hs && hc && fig && hs < fig && fig < hc);
    free(page);
    free(text);
    /* Two machines: the first one's Summary opens the report, its plot under it (drawn in
     * machine A's plots directory) before the claims by machine. */
    char two[256], md2[256];
    cb_test_tmp_path(two, sizeof two, "head-two.json");
    cb_test_tmp_path(md2, sizeof md2, "head2.md");
    json_t *d = load_fixture(b);
    json_object_set_new(json_object_get(d, "machine"), "hostname", json_string("another"));
    CB_CHECK(json_dump_file(d, two, 0) == 0);
    json_decref(d);
    c = cb_test_corobench("report", base, two, "-o", md2, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    free(c.out);
    free(c.err);
    text = cb_test_slurp(md2);
    const char *h2 = strstr(text, "\n![headline](<"), *cbm = strstr(text, "\n## Claims by machine");
    CB_CHECK(h2 && cbm && h2 < cbm && strstr(h2, "-plots/A/headline.png>)") < cbm);
    free(text);
    unlink(base);
    unlink(b);
    unlink(two);
    unlink(md);
    unlink(md2);
    unlink(html);
}

/* A plot not drawn says why in the Summary (the headline plot) and in each claim's "Plots:"
 * line; the why can hold text from outside (gnuplot's last stderr line, a path), so it goes
 * through the Markdown sink there as in the Plots section. A gnuplot first on PATH that fails
 * with Markdown and HTML on stderr: none of it is markup in the report. */
CB_TEST_T(claims_plot_not_drawn_reason_escaped, 120)
{
    char dir[256], gp[300], base[256], md[256];
    cb_test_tmp_path(dir, sizeof dir, "fakegp");
    CB_CHECK(mkdir(dir, 0755) == 0 || errno == EEXIST);
    snprintf(gp, sizeof gp, "%s/gnuplot", dir);
    FILE *f = fopen(gp, "w");
    CB_CHECK(f != NULL);
    fputs("#!/bin/sh\nprintf '%s\\n' '**bold** _under_ <script>x</script> | `tick` # end' >&2\n"
          "exit 1\n",
          f);
    fclose(f);
    CB_CHECK(chmod(gp, 0755) == 0);
    cb_test_tmp_path(base, sizeof base, "whyesc.json");
    fixture_file("tests/claims/rsb-stackless/supported-one-per-level.json", base);
    cb_test_tmp_path(md, sizeof md, "whyesc.md");
    char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL, path[4096];
    snprintf(path, sizeof path, "%s:%s", dir, old ? old : "/usr/bin:/bin");
    setenv("PATH", path, 1);
    cb_test_cli c = cb_test_corobench("report", base, "-o", md, NULL);
    if (old)
        setenv("PATH", old, 1);
    free(old);
    CB_CHECK_EQ_INT(c.status, 0);
    free(c.out);
    free(c.err);
    char *text = cb_test_md_unwrap(cb_test_slurp(md));
    /* the Summary's headline plot and the claims' plots, every one of them not drawn */
    unsigned whys = 0;
    for (const char *at = text; (at = strstr(at, "not drawn: ")); at++) {
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)strcspn(at, "\n"), at);
        if (strstr(line, "**bold**") || strstr(line, "<script>") || strstr(line, "`tick`"))
            CB_FAIL("the why as markup: %s", line);
        whys += strstr(line, "\\*\\*bold\\*\\* \\_under\\_") != NULL;
    }
    CB_CHECK(whys >= 3);
    CB_CHECK_CONTAINS(text, "(this table as a picture) is not drawn: \\*\\*bold\\*\\* \\_under\\_");
    CB_CHECK(!strstr(text, "<script>"));
    free(text);
    unlink(gp);
    rmdir(dir);
    unlink(base);
    unlink(md);
}

/* Issue 32 item 3: a plugin's and an external program's cells beside asm and sm. Claim 10's
 * fixture with a plugin "mylib" (stackful, a bit slower than asm) at both depths and an external
 * program "myext" (family external) at depth 16: the Summary has a row for each (mylib over asm,
 * myext over the faster of the two families' fastest, sm there), claim 10's table and at a
 * glance give each one's ratio at its points, the appendix a column each. Before: no external
 * row in the Summary, nothing of either in claim 10's table or at a glance. */
CB_TEST(report_your_runtimes_beside_asm_and_sm)
{
    json_t *doc = load_fixture("tests/claims/models/supported-each-wins.json");
    json_t *cells = json_object_get(doc, "cells"), *add = json_array(), *c;
    size_t i;
    json_array_foreach(cells, i, c)
    {
        int depth = (int)json_integer_value(json_object_get(json_object_get(c, "params"), "depth"));
        if (!strcmp(cb_str(c, "impl"), cb_impl_name(CB_IMPL_ASM))) {
            json_t *p = json_deep_copy(c);
            json_object_set_new(p, "impl", json_string("mylib"));
            json_object_set_new(p, "impl_row",
                                json_pack("{s:s, s:[], s:{}}", "kind", "plugin", "lacks",
                                          "defaults"));
            scale_cell(p, 1.1);
            json_array_append_new(add, p);
        } else if (depth == 16) {
            json_t *e = json_deep_copy(c);
            json_object_set_new(e, "impl", json_string("myext"));
            json_object_set_new(e, "family", json_string("external"));
            json_object_set_new(e, "impl_row",
                                json_pack("{s:s, s:[], s:{}}", "kind", "external", "lacks",
                                          "defaults"));
            scale_cell(e, 3);
            json_array_append_new(add, e);
        }
    }
    json_array_extend(cells, add);
    json_decref(add);
    char path[256];
    cb_test_tmp_path(path, sizeof path, "yours.json");
    CB_CHECK(json_dump_file(doc, path, 0) == 0);
    json_decref(doc);
    cb_test_cli r = cb_test_corobench("report", path, "--no-plots", NULL);
    CB_CHECK_EQ_INT(r.status, 0);
    cb_test_md_unwrap(r.out);
    char line[2048];
    const char *sf = cb_impl_name(CB_IMPL_ASM), *sl = cb_impl_name(CB_IMPL_SM);
    char want[64];
    rows_after(r.out, "## Summary", "| mylib | stackful | pingpong | 2 |", line, sizeof line);
    snprintf(want, sizeof want, " mylib/%s at ", sf);
    CB_CHECK_CONTAINS(line, want);
    rows_after(r.out, "## Summary", "| myext | external | pingpong | 1 |", line, sizeof line);
    snprintf(want, sizeof want, " myext/%s at ", sl);
    CB_CHECK_CONTAINS(line, want);
    /* claim 10's table and at a glance (a table of two points may be turned a quarter, a row
     * per column): mylib 1.10x asm at both depths, myext 3.00x sm at depth 16 alone */
    const char *where[] = {"\n### 10. ", "\n## pingpong at a glance"};
    for (size_t k = 0; k < 2; k++) {
        const char *at = strstr(r.out, where[k]), *end = at ? strstr(at + 1, "\n#") : NULL;
        CB_CHECK(at && end);
        char *part = strndup(at, (size_t)(end - at));
        snprintf(want, sizeof want, "mylib/%s 1.10x [", sf);
        const char *one = strstr(part, want);
        if (!one || !strstr(one + 1, want))
            CB_FAIL("'%s' not twice in:\n%s", want, part);
        snprintf(want, sizeof want, "myext/%s 3.00x [", sl);
        one = strstr(part, want);
        if (!one || strstr(one + 1, want))
            CB_FAIL("'%s' not once in:\n%s", want, part);
        free(part);
    }
    rows_after(r.out, "### pingpong", "| point |", line, sizeof line);
    CB_CHECK_CONTAINS(line, " mylib |");
    CB_CHECK_CONTAINS(line, " myext |");
    free(r.out);
    free(r.err);
    unlink(path);
}
