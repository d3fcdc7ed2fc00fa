/* wl-args.c: a hot function that takes arguments: why must not suggest a tdprof loop command that cannot run (issue 16 item 10). */
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) long work(long n, long m) { long s = 0; for (long i = 0; i < n; i++) s += (i * m) ^ (i >> 3); return s; }
int main(int argc, char **argv) { printf("%ld\n", work(argc > 5 ? 1 : 3000000, argc + 2)); return 0; }
