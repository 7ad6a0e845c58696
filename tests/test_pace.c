/* The pace of cells (harness/run/pace.h): what run's ETA and its dry run's estimate take from a
 * cell measured before, and how the progress line learns while the run goes. */
#include <jansson.h>
#include <math.h>
#include <unistd.h>

#include "harness/run/pace.h"
#include "harness/run/progress.h"
#include "test.h"

/* A cell's pace rescales its repetitions to another run's and keeps the rest of its time. */
CB_TEST(pace_predict_rescales_the_repetitions)
{
    /* 0.1 s per process, 3 warm-up and 5 timed repetitions of 2 ms: 0.084 s of it was not the
     * repetitions; at 3 timed of at least 2 ms: 0.084 + 6 x 0.002. */
    json_t *p = json_pack("{s:f, s:f, s:f, s:f}", "wall_s", 0.1, "rep_ms", 2.0, "warmup_reps",
                          3.0, "reps", 5.0);
    CB_CHECK(fabs(cb_pace_predict(p, 3, 2) - 0.096) < 1e-9);
    /* at least 5 ms each now: 0.084 + 6 x 0.005 */
    CB_CHECK(fabs(cb_pace_predict(p, 3, 5) - 0.114) < 1e-9);
    json_decref(p);
    /* Work that set a repetition's length (60 ms) keeps it under a shorter minimum. */
    p = json_pack("{s:f, s:f, s:f, s:f}", "wall_s", 0.6, "rep_ms", 60.0, "warmup_reps", 2.0,
                  "reps", 5.0);
    CB_CHECK(fabs(cb_pace_predict(p, 3, 2) - (0.6 - 0.42 + 0.3)) < 1e-9);
    json_decref(p);
    /* A program that did not say its repetitions' length: its time as it was. */
    p = json_pack("{s:f, s:f, s:f, s:f}", "wall_s", 0.4, "rep_ms", 0.0, "warmup_reps", 0.0,
                  "reps", 5.0);
    CB_CHECK(fabs(cb_pace_predict(p, 3, 2) - 0.4) < 1e-9);
    json_decref(p);
    CB_CHECK(isnan(cb_pace_predict(NULL, 3, 2)));
    p = json_pack("{s:f}", "wall_s", 0.4);
    CB_CHECK(isnan(cb_pace_predict(p, 3, 2)));
    json_decref(p);
}

/* The ETA: a cell that ran takes its own time for the rest of its invocations; one that did
 * not takes its pace, scaled by how the first invocations so far held to theirs, per source. */
CB_TEST(progress_eta_learns_each_cells_own_time)
{
    FILE *f = fopen("/dev/null", "w");
    CB_CHECK(f != NULL);
    cb_progress p;
    cb_progress_start(&p, f, 3, 3, 0);
    const double pace[3] = {0.1, 1.0, 0.2}, extra[3] = {0.1, 0, 0};
    const unsigned char measured[3] = {0, 0, 1};
    cb_progress_cells(&p, pace, extra, measured);
    /* nothing ran: every pace at its word, cell 0's counting pass once */
    CB_CHECK(fabs(cb_progress_left(&p, 0) - (0.3 + 0.1 + 3.0 + 0.6)) < 1e-9);
    /* cell 0's first invocation: its process 0.5 s, 0.9 s with its counting pass, against 0.2 */
    cb_progress_begin(&p, 0, 0, "x");
    p.t_begin -= 0.9;
    cb_progress_timed(&p, 0, 0.5);
    cb_progress_end(&p, 0, 0, "x", "ok", 0);
    double g = (p.took[0] + 1) / (0.2 + 1); /* the model's paces, scaled */
    CB_CHECK(p.took[0] >= 0.9 && p.took[0] < 5);
    CB_CHECK(fabs(cb_progress_left(&p, 1) - (2 * 0.5 + g * 3.0 + 0.6)) < 1e-9);
    /* a cell that will not run leaves the estimate */
    cb_progress_skip(&p, 1, 3, 0);
    CB_CHECK(fabs(cb_progress_left(&p, 1) - (2 * 0.5 + 0.6)) < 1e-9);
    /* so does one that is settled (unsupported at its first round, or failed): the rounds
     * that skip it later count nothing (the languages stage's ETA said 47 s for 35 s left,
     * its unsupported cells counted at their pace until their last round skipped them) */
    cb_progress_settled(&p, 2);
    CB_CHECK(fabs(cb_progress_left(&p, 1) - 2 * 0.5) < 1e-9);
    cb_progress_skip(&p, 2, 1, 0);
    CB_CHECK(fabs(cb_progress_left(&p, 1) - 2 * 0.5) < 1e-9);
    cb_progress_finish(&p);
    fclose(f);
}

/* A run records each invocation's wall time and each cell's pace; a dry run with --pace takes
 * them (and a record keeps them), --pace none the model; a file it cannot read is refused. */
CB_TEST_T(pace_recorded_and_read_back, 180)
{
    char out[256], rec[256];
    cb_test_tmp_path(out, sizeof out, "pace.json");
    cb_test_tmp_path(rec, sizeof rec, "pace-record.json");
    unlink(out);
    unlink(rec);
    cb_test_cli c = cb_test_corobench("run", "--impl", "asm,sm", "--workload", "pingpong",
                                      "--param", "depth=0,4", "--param", "switches=1000",
                                      "--invocations", "2", "--reps", "2", "--min-rep-ms", "1",
                                      "--no-table", "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *doc = json_load_file(out, 0, NULL), *cell;
    CB_CHECK(doc != NULL);
    size_t i;
    double want = 0;
    json_array_foreach(json_object_get(doc, "cells"), i, cell)
    {
        json_t *pace = json_object_get(cell, "pace"), *inv;
        size_t j;
        CB_CHECK(json_is_object(pace));
        CB_CHECK(json_number_value(json_object_get(pace, "wall_s")) > 0);
        CB_CHECK(json_number_value(json_object_get(pace, "reps")) == 2);
        json_array_foreach(json_object_get(cell, "invocations"), j, inv)
            CB_CHECK(json_number_value(json_object_get(inv, "wall_s")) > 0);
        CB_CHECK(!json_object_get(cell, "wall_s"));
        want += 3 * cb_pace_predict(pace, 3, 2);
    }
    json_decref(doc);
    c = cb_test_corobench("run", "--impl", "asm,sm", "--workload", "pingpong", "--param",
                          "depth=0,4,8", "--param", "switches=1000", "--invocations", "3",
                          "--reps", "3", "--warmup", "1", "--min-rep-ms", "2", "--dry-run", "--pace",
                          out, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "4 of the 6 cells at their pace in ");
    CB_CHECK_CONTAINS(c.out, "; the others by the model:");
    /* the four measured cells' share, then the model's two (1 warm-up, 3 timed of 2 ms): the
     * estimate is their sum */
    double model = (CB_PACE_CALIBRATION_REPS + 1 + 3) * 2 / 1e3 + CB_PACE_PROCESS_S;
    char clock[32], line[64];
    cb_progress_clock(want + 2 * 3 * model, clock, sizeof clock);
    snprintf(line, sizeof line, "estimated time: %s;", clock);
    CB_CHECK_CONTAINS(c.out, line);
    /* a record keeps the paces */
    c = cb_test_corobench("export", "--format", "summary", out, "-o", rec, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    c = cb_test_corobench("run", "--impl", "asm,sm", "--workload", "pingpong", "--param",
                          "depth=0,4", "--param", "switches=1000", "--dry-run", "--pace", rec,
                          NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "4 of the 4 cells at their pace in ");
    /* a record without these cells: the model, saying so */
    c = cb_test_corobench("run", "--impl", "asm", "--workload", "recursive", "--dry-run", "--pace",
                          rec, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "by the model (none of these cells is in ");
    /* a record keeps it as an array of four numbers; anything else is refused */
    json_t *r = json_load_file(rec, 0, NULL);
    CB_CHECK(r != NULL);
    json_t *p0 = json_object_get(json_array_get(json_object_get(r, "cells"), 0), "pace");
    CB_CHECK(json_is_array(p0) && json_array_size(p0) == 4);
    json_object_set_new(json_array_get(json_object_get(r, "cells"), 0), "pace", json_string("x"));
    CB_CHECK_EQ_INT(json_dump_file(r, rec, 0), 0);
    json_decref(r);
    c = cb_test_corobench("run", "--impl", "asm", "--workload", "pingpong", "--dry-run",
                          "--pace", rec, NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK_CONTAINS(c.err, "field 'pace' is a string (valid: an array of 4 numbers");
    /* a cell the file found unsupported is known to take no time (go has no pipeline) */
    c = cb_test_corobench("run", "--impl", "sm,go", "--workload", "pipeline", "--invocations",
                          "1", "--reps", "1", "--min-rep-ms", "1", "--no-table", "-o", out,
                          "--force", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    c = cb_test_corobench("run", "--impl", "sm,go", "--workload", "pipeline", "--dry-run",
                          "--pace", out, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "2 of the 2 cells at their pace in ");
    c = cb_test_corobench("run", "--impl", "asm", "--workload", "pingpong", "--dry-run",
                          "--pace", "none", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "  by the model (--pace none):\n");
    c = cb_test_corobench("run", "--impl", "asm", "--workload", "pingpong", "--dry-run",
                          "--pace", "/nonexistent/pace.json", NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK_CONTAINS(c.err, "invalid value '/nonexistent/pace.json' for --pace: ");
    CB_CHECK_CONTAINS(c.err, "(valid: a record or results file, or none)\n");
    unlink(out);
    unlink(rec);
}
