/* Alternating repetitions: the two processes of one `corobench ab` pair (docs/ci.md) take turns,
 * repetition by repetition, on a socket the parent gave both, so that each of new's repetitions
 * runs milliseconds from one of base's. On this project's shared VMs the host slows a process
 * for tens of milliseconds to seconds at a time (a repetition series of one process moves between
 * 18 and 31 ns per node and back); two processes run one after the other land in different such
 * periods, two that take turns share them.
 *
 * The protocol, one byte at a time on a stream socket: each side first says whether it will take
 * turns ('R') or not ('N': a program that times itself); when both say 'R' the first side
 * repeats "repetition, then pass the turn ('T')" and the second "wait for the turn, repetition,
 * pass it". Otherwise they run one after the other: the first at once, the second when the
 * first has closed its end. A side that has gone (end of file, a broken socket: it ended, failed,
 * or is a build without turns that never speaks) frees the other to run on alone. The clock
 * never runs while a side waits: a turn is taken before a repetition's setup and passed after
 * its finish. */
#ifndef CB_MEASURE_TURNS_H
#define CB_MEASURE_TURNS_H

#include <jansson.h>

/* Joins the pair on socket fd (fd < 0: no pair, and every call below does nothing). first: this
 * side goes first; alternate: this process will take turns (0: it runs as a whole, after the
 * other side when second). Returns when this side may start. */
void cb_turns_begin(int fd, int first, int alternate);
/* Before a repetition: waits for this side's turn while the two alternate. */
void cb_turns_take(void);
/* After it: hands the turn to the other side. */
void cb_turns_pass(void);
/* Leaves the pair (the other side runs on alone): after the last repetition and what follows
 * it. Taking the turn first, so that the other side's repetition in progress is not shared. */
void cb_turns_end(void);
/* What the pair did, for the invocation's record ("turns"): NULL when there was no pair. */
json_t *cb_turns_json(void);

#endif
