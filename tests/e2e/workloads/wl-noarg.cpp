// wl-noarg.cpp: a C++ hot function of no arguments: why suggests CC=g++ tdprof loop, which runs (issue 16 item 10).
#include <cstdio>
__attribute__((noinline)) long work() { long s = 0; for (long i = 0; i < 3000000; i++) s += (i * 7) ^ (i >> 3); return s; }
int main() { std::printf("%ld\n", work()); return 0; }
