/* The report's claims on known outcomes: every claim of the claims table (a file of
 * harness/report/claims/ each) has fixtures in tests/claims/<id>/, small results files named
 * <verdict>-<what>.json, each giving that verdict; together they reach every verdict the claim's
 * rule can give, "not measured" among them. The number of claims comes from the table. */
#include <dirent.h>
#include <jansson.h>
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
