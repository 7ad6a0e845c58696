/* Environment checks before a run and steal time around a cell's repetitions. Everything here
 * reads /proc and /sys; none of it runs inside a timed region. A file that does not exist (no
 * cpufreq on a virtual machine, no SMT) gives null, not a warning: only a condition that is known
 * to be there and to spoil timing warns, as google benchmark does about CPU scaling. */
#include "env.h"

#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A sibling busier than this over the sample shares the pinned CPU's core with another task. */
#define ENV_SIBLING_BUSY 0.10

static int read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char *ok = fgets(buf, (int)len, f);
    fclose(f);
    if (!ok)
        return -1;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* Busy and total jiffies of one CPU's /proc/stat line ("cpuN"), or of all ("cpu") when cpu < 0.
 * Fields: user nice system idle iowait irq softirq steal ... Read with open/read into a stack
 * buffer, not stdio: the cell's child reads it between repetitions, and a FILE's buffers freed
 * into the heap there would move the instances' allocations (sm pingpong went from 3 to 17 ns
 * per switch with such a change of heap layout). The CPU lines come first in the file. */
static int cpu_times(int cpu, uint64_t f[8])
{
    char want[32], buf[16384];
    if (cpu < 0)
        snprintf(want, sizeof want, "cpu ");
    else
        snprintf(want, sizeof want, "cpu%d ", cpu);
    int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t n = 0;
    ssize_t k;
    while (n + 1 < sizeof buf && (k = read(fd, buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)k;
    close(fd);
    buf[n] = '\0';
    size_t wl = strlen(want);
    for (char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (!strncmp(line, want, wl))
            return sscanf(line + wl,
                          "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
                          " %" SCNu64 " %" SCNu64,
                          &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7]) == 8
                       ? 0
                       : -1;
    return -1;
}


int cb_env_pinned_cpu(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) != 1)
        return -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            return c;
    return -1;
}

int cb_env_steal_ns(int cpu, uint64_t *ns)
{
    uint64_t f[8];
    *ns = 0;
    if (cpu_times(cpu, f) != 0)
        return -1;
    *ns = f[7] * (1000000000ULL / (uint64_t)sysconf(_SC_CLK_TCK));
    return 0;
}

/* Share of the time cpu was busy (not idle or iowait) over ~100 ms, or -1. */
static double busy_share(int cpu)
{
    uint64_t a[8], b[8];
    if (cpu_times(cpu, a) != 0)
        return -1;
    nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
    if (cpu_times(cpu, b) != 0)
        return -1;
    uint64_t total = 0, idle = (b[3] - a[3]) + (b[4] - a[4]);
    for (int i = 0; i < 8; i++)
        total += b[i] - a[i];
    return total ? 1.0 - (double)idle / (double)total : 0;
}

static void warn(json_t *warnings, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(json_t *warnings, const char *fmt, ...)
{
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    json_array_append_new(warnings, json_string(text));
}

json_t *cb_env_check(int pin_cpu)
{
    int cpu = pin_cpu >= 0 ? pin_cpu : 0;
    char path[256], buf[256];
    json_t *env = json_object(), *warnings = json_array();

    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu);
    if (read_line(path, buf, sizeof buf) == 0) {
        json_object_set_new(env, "governor", json_string(buf));
        if (strcmp(buf, "performance"))
            warn(warnings,
                 "CPU %d's frequency governor is '%s', not 'performance': the clock rate may "
                 "change during a cell",
                 cpu, buf);
    } else {
        json_object_set_new(env, "governor", json_null());
    }

    /* intel_pstate says no_turbo; acpi-cpufreq and amd-pstate say boost. */
    int turbo = -1;
    if (read_line("/sys/devices/system/cpu/intel_pstate/no_turbo", buf, sizeof buf) == 0)
        turbo = atoi(buf) == 0;
    else if (read_line("/sys/devices/system/cpu/cpufreq/boost", buf, sizeof buf) == 0)
        turbo = atoi(buf) != 0;
    json_object_set_new(env, "turbo", turbo < 0 ? json_null() : json_boolean(turbo));
    if (turbo == 1)
        warn(warnings, "turbo/boost is on: the clock rate depends on temperature and on the "
                       "other cores' load");

    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
             cpu);
    json_t *sib = json_null();
    if (read_line(path, buf, sizeof buf) == 0) {
        /* "1,5" or "4-5": the first CPU listed other than ours */
        int other = -1;
        for (char *p = buf; *p && other < 0;) {
            char *end;
            long c = strtol(p, &end, 10);
            if (end == p)
                break;
            long hi = c;
            if (*end == '-')
                hi = strtol(end + 1, &end, 10);
            for (long k = c; k <= hi && other < 0; k++)
                if (k != cpu)
                    other = (int)k;
            p = *end ? end + 1 : end;
        }
        if (other >= 0) {
            double busy = busy_share(other);
            sib = json_pack("{s:i, s:o}", "cpu", other, "busy_share",
                            busy < 0 ? json_null() : json_real(busy));
            if (busy > ENV_SIBLING_BUSY)
                warn(warnings,
                     "CPU %d's SMT sibling, CPU %d, was busy %.0f%% of the last 100 ms: the two "
                     "share one core's caches and execution units",
                     cpu, other, busy * 100);
        }
    }
    json_object_set_new(env, "smt_sibling", sib);

    int hyper = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[4096];
    while (f && !hyper && fgets(line, sizeof line, f))
        hyper = !strncmp(line, "flags", 5) && strstr(line, " hypervisor");
    if (f)
        fclose(f);
    json_object_set_new(env, "hypervisor", json_boolean(hyper));
    if (hyper)
        warn(warnings, "running under a hypervisor: the host may steal time (see each cell's "
                       "steal_ns_per_rep) and the TSC and PMU are virtualised");

    double load[3] = {0, 0, 0};
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (read_line("/proc/loadavg", buf, sizeof buf) == 0 &&
        sscanf(buf, "%lf %lf %lf", &load[0], &load[1], &load[2]) == 3) {
        json_object_set_new(env, "loadavg", json_pack("[f, f, f]", load[0], load[1], load[2]));
        /* Beyond one CPU's worth of other work, the measured cell competes for a CPU. */
        if (load[0] > (double)(ncpu > 1 ? ncpu - 1 : 1))
            warn(warnings,
                 "load average %.2f on %ld CPUs: other tasks compete with the measured cells "
                 "(see each cell's preemptions)",
                 load[0], ncpu);
    } else {
        json_object_set_new(env, "loadavg", json_null());
    }
    json_object_set_new(env, "warnings", warnings);
    return env;
}

void cb_env_print_warnings(json_t *env, FILE *out)
{
    size_t i;
    json_t *w;
    json_array_foreach(json_object_get(env, "warnings"), i, w)
        fprintf(out, "corobench: warning: %s\n", json_string_value(w));
}
