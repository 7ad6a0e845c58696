/* `corobench ab`: one plan, two arms, decided on paired ratios (docs/ci.md, "Paired A/B"). */
#ifndef CB_AB_H
#define CB_AB_H

int cb_cmd_ab(int argc, char **argv);

/* ab's defaults, defined once: its parser starts from them and `help ab` prints them. */
typedef struct cb_ab_defaults {
    unsigned rounds, max_rounds;
    double threshold, budget; /* percent */
    double instr_threshold;   /* percent: instructions per op changed beyond it */
} cb_ab_defaults;
extern const cb_ab_defaults cb_ab_default;

#endif
