// pcm.c - page-cache residency cost measurements.
// Build: gcc -O2 -Wall -o /tmp/pcm/pcm /tmp/pcm/pcm.c
// Usage:
//   pcm mincore LISTFILE [reps]   # (2) mincore cost, mapped-once and mmap+mincore+munmap per pass, + cachestat(2)
//   pcm mlock   LISTFILE [hold_s] # (3) mmap+mlock all files, time + /proc/self/status VmRSS/VmLck
//   pcm pread   LISTFILE [reps]   # (4) pread 1 byte per 4096 over all files
//   pcm chan    FILE [samples]    # (5) 1-byte pread latency of non-resident vs resident page
// LISTFILE: one absolute path per line (names may contain spaces).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PG 4096UL

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}
static int cmpd(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, int n) {
    qsort(v, n, sizeof *v, cmpd);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

typedef struct { char *path; int fd; size_t size; void *map; } F;
static F *files; static int nf; static size_t total_pages, total_bytes;

static void load_list(const char *lf) {
    FILE *fp = fopen(lf, "r");
    if (!fp) { perror(lf); exit(1); }
    char *line = NULL; size_t cap = 0; ssize_t n; int capf = 0;
    while ((n = getline(&line, &cap, fp)) > 0) {
        if (line[n - 1] == '\n') line[--n] = 0;
        if (!n) continue;
        int fd = open(line, O_RDONLY | O_CLOEXEC);
        if (fd < 0) { fprintf(stderr, "open %s: %s\n", line, strerror(errno)); continue; }
        struct stat st;
        if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size == 0) { close(fd); continue; }
        if (nf == capf) { capf = capf ? capf * 2 : 1024; files = realloc(files, capf * sizeof *files); }
        files[nf++] = (F){strdup(line), fd, (size_t)st.st_size, NULL};
        total_bytes += st.st_size;
        total_pages += (st.st_size + PG - 1) / PG;
    }
    free(line); fclose(fp);
    fprintf(stderr, "# %d non-empty regular files, %zu bytes, %zu pages\n", nf, total_bytes, total_pages);
}

static void map_all(void) {
    for (int i = 0; i < nf; i++) {
        files[i].map = mmap(NULL, files[i].size, PROT_READ, MAP_SHARED, files[i].fd, 0);
        if (files[i].map == MAP_FAILED) { perror("mmap"); exit(1); }
    }
}
// Make every page resident by touching one byte per page through the mapping.
static void touch_all(void) {
    volatile unsigned char s = 0;
    for (int i = 0; i < nf; i++)
        for (size_t o = 0; o < files[i].size; o += PG) s += ((unsigned char *)files[i].map)[o];
}
static unsigned char *vec;
static size_t mincore_one(void *m, size_t size) {
    size_t np = (size + PG - 1) / PG, nr = 0;
    if (mincore(m, size, vec)) { perror("mincore"); exit(1); }
    for (size_t p = 0; p < np; p++) nr += !(vec[p] & 1);
    return nr;
}
static size_t maxpages(void) {
    size_t mx = 0;
    for (int i = 0; i < nf; i++) { size_t np = (files[i].size + PG - 1) / PG; if (np > mx) mx = np; }
    return mx;
}

// cachestat(2), Linux >= 6.5, syscall 451 on x86_64
struct cachestat_range { uint64_t off, len; };
struct cachestat { uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted; };
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

static void do_mincore(int reps) {
    vec = malloc(maxpages());
    double t0 = now_ms();
    map_all();
    double t1 = now_ms();
    touch_all();
    double t2 = now_ms();
    printf("initial mmap of all: %.1f ms; touch-all (make resident): %.1f ms\n", t1 - t0, t2 - t1);
    double *v = malloc(reps * sizeof *v);
    size_t nonres = 0;
    for (int r = 0; r < reps; r++) {
        nonres = 0;
        double a = now_ms();
        for (int i = 0; i < nf; i++) nonres += mincore_one(files[i].map, files[i].size);
        v[r] = now_ms() - a;
        printf("  mincore-only pass %d: %.2f ms (non-resident pages %zu)\n", r, v[r], nonres);
    }
    printf("MEDIAN mincore-only (mapped once): %.2f ms over %d files / %zu pages\n", median(v, reps), nf, total_pages);
    // pass B: fds held open; mmap + mincore + munmap per file per pass (keep the persistent map alive too,
    // so residency is unchanged; the extra map is a second VMA).
    for (int r = 0; r < reps; r++) {
        nonres = 0;
        double a = now_ms();
        for (int i = 0; i < nf; i++) {
            void *m = mmap(NULL, files[i].size, PROT_READ, MAP_SHARED, files[i].fd, 0);
            if (m == MAP_FAILED) { perror("mmap"); exit(1); }
            nonres += mincore_one(m, files[i].size);
            munmap(m, files[i].size);
        }
        v[r] = now_ms() - a;
        printf("  mmap+mincore+munmap pass %d: %.2f ms (non-resident %zu)\n", r, v[r], nonres);
    }
    printf("MEDIAN mmap+mincore+munmap (fds held open): %.2f ms\n", median(v, reps));
    // pass C: open + fstat + mmap + mincore + munmap + close by path
    for (int r = 0; r < reps; r++) {
        nonres = 0;
        double a = now_ms();
        for (int i = 0; i < nf; i++) {
            int fd = open(files[i].path, O_RDONLY | O_CLOEXEC);
            struct stat st; fstat(fd, &st);
            void *m = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
            if (m == MAP_FAILED) { perror("mmap"); exit(1); }
            nonres += mincore_one(m, st.st_size);
            munmap(m, st.st_size); close(fd);
        }
        v[r] = now_ms() - a;
        printf("  open+fstat+mmap+mincore+munmap+close pass %d: %.2f ms (non-resident %zu)\n", r, v[r], nonres);
    }
    printf("MEDIAN open+mmap+mincore+munmap+close (by path): %.2f ms\n", median(v, reps));
    // pass D: cachestat on held fds (no mapping needed)
    int ok = 1;
    for (int r = 0; r < reps && ok; r++) {
        uint64_t cached = 0;
        double a = now_ms();
        for (int i = 0; i < nf; i++) {
            struct cachestat_range cr = {0, 0}; // len 0 = to EOF
            struct cachestat cs;
            if (syscall(__NR_cachestat, files[i].fd, &cr, &cs, 0)) { perror("cachestat"); ok = 0; break; }
            cached += cs.nr_cache;
        }
        v[r] = now_ms() - a;
        if (ok) printf("  cachestat pass %d: %.2f ms (nr_cache total %llu of %zu pages)\n", r, v[r], (unsigned long long)cached, total_pages);
    }
    if (ok) printf("MEDIAN cachestat(2) per file (fds held): %.2f ms\n", median(v, reps));
}

static void print_status(const char *tag) {
    FILE *f = fopen("/proc/self/status", "r"); char l[256];
    printf("[%s]", tag);
    while (fgets(l, sizeof l, f))
        if (!strncmp(l, "VmRSS", 5) || !strncmp(l, "VmLck", 5) || !strncmp(l, "RssFile", 7) || !strncmp(l, "VmSize", 6) || !strncmp(l, "VmPTE", 5)) {
            l[strcspn(l, "\n")] = 0; printf("  %s", l);
        }
    fclose(f); printf("\n");
    f = fopen("/proc/meminfo", "r");
    while (fgets(l, sizeof l, f)) if (!strncmp(l, "Mlocked", 7) || !strncmp(l, "Unevictable", 11)) printf("   meminfo %s", l);
    fclose(f);
}

static void do_mlock(int hold) {
    print_status("start");
    double t0 = now_ms();
    map_all();
    double t1 = now_ms();
    int fails = 0;
    for (int i = 0; i < nf; i++)
        if (mlock(files[i].map, files[i].size)) { if (!fails++) perror("mlock"); }
    double t2 = now_ms();
    printf("mmap all: %.1f ms; mlock all: %.1f ms; mlock failures: %d/%d\n", t1 - t0, t2 - t1, fails, nf);
    print_status("after mlock");
    // residency check after mlock
    vec = malloc(maxpages()); size_t nr = 0;
    double a = now_ms();
    for (int i = 0; i < nf; i++) nr += mincore_one(files[i].map, files[i].size);
    printf("mincore after mlock: %.2f ms, non-resident pages %zu\n", now_ms() - a, nr);
    if (hold) { printf("holding %d s (pid %d)\n", hold, getpid()); fflush(stdout); sleep(hold); }
    a = now_ms();
    for (int i = 0; i < nf; i++) munmap(files[i].map, files[i].size);
    printf("munmap all: %.1f ms\n", now_ms() - a);
    print_status("after munmap");
}

static void do_pread(int reps) {
    double *v = malloc(reps * sizeof *v); char b;
    for (int r = 0; r < reps; r++) {
        double a = now_ms(); size_t n = 0;
        for (int i = 0; i < nf; i++)
            for (size_t o = 0; o < files[i].size; o += PG) n += pread(files[i].fd, &b, 1, o) == 1;
        v[r] = now_ms() - a;
        printf("  pread-1B/page pass %d (fds held): %.2f ms (%zu reads)\n", r, v[r], n);
    }
    printf("MEDIAN pread 1B/page, fds held: %.2f ms over %zu pages\n", median(v, reps), total_pages);
    for (int r = 0; r < reps; r++) {
        double a = now_ms();
        for (int i = 0; i < nf; i++) {
            int fd = open(files[i].path, O_RDONLY | O_CLOEXEC);
            for (size_t o = 0; o < files[i].size; o += PG) if (pread(fd, &b, 1, o) != 1) break;
            close(fd);
        }
        v[r] = now_ms() - a;
        printf("  open+pread-1B/page+close pass %d: %.2f ms\n", r, v[r]);
    }
    printf("MEDIAN open+pread 1B/page+close: %.2f ms\n", median(v, reps));
}

static void do_chan(const char *path, int samples) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) { perror(path); exit(1); }
    struct stat st; fstat(fd, &st);
    size_t np = (st.st_size + PG - 1) / PG;
    void *m = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    vec = malloc(np); mincore(m, st.st_size, vec);
    size_t nres = 0; for (size_t p = 0; p < np; p++) nres += vec[p] & 1;
    printf("%s: %zu pages, %zu resident before test\n", path, np, nres);
    posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM); // limit readahead so probes don't warm neighbours
    char b; int done = 0;
    // choose non-resident pages spaced >= 64 pages apart, that are also not near each other
    size_t last = (size_t)-1;
    for (size_t p = 0; p < np && done < samples; p++) {
        if (vec[p] & 1) continue;
        if (last != (size_t)-1 && p - last < 256) continue;
        last = p;
        long long a = now_ns();
        pread(fd, &b, 1, p * PG);
        long long t_cold = now_ns() - a;
        a = now_ns();
        pread(fd, &b, 1, p * PG + 1); // same page, now resident
        long long t_warm = now_ns() - a;
        unsigned char v1; mincore((char *)m + p * PG, 1, &v1);
        printf("  page %7zu: cold pread %8lld ns   warm pread (same page, next call) %6lld ns   resident-after=%d\n",
               p, t_cold, t_warm, v1 & 1);
        done++;
    }
    if (!done) printf("  no non-resident page found\n");
    // resident page that was resident before (from initial scan)
    for (size_t p = 0, k = 0; p < np && k < 3; p++) if (vec[p] & 1) {
        long long a = now_ns(); pread(fd, &b, 1, p * PG); long long t = now_ns() - a;
        printf("  previously-resident page %zu: pread %lld ns\n", p, t); k++;
    }
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: see source\n"); return 2; }
    const char *mode = argv[1];
    int n = argc > 3 ? atoi(argv[3]) : 5;
    if (!strcmp(mode, "chan")) { do_chan(argv[2], argc > 3 ? n : 5); return 0; }
    load_list(argv[2]);
    if (!strcmp(mode, "mincore")) do_mincore(n);
    else if (!strcmp(mode, "mlock")) do_mlock(argc > 3 ? n : 0);
    else if (!strcmp(mode, "pread")) do_pread(n);
    else { fprintf(stderr, "bad mode\n"); return 2; }
    return 0;
}
