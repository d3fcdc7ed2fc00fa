// wl-annot.cpp: C++ names for `tdprof annotate` (tests/e2e/test_annotate.py builds it with
// g++ -O1 -g -fno-if-conversion -fno-if-conversion2): two overloads of one name in a namespace,
// with one data-dependent branch on random bytes (about half of it mispredicted) in
// shapes::count_over(const unsigned char *, size_t, Filter), and a helper inlined into main
// (shapes::mix: its lines belong to it, in main's code).
#include <cstddef>
#include <cstdio>
#include <cstdlib>

namespace shapes {

struct Filter {
	int limit;
	bool keep(unsigned char c) const { return c > limit; }
};

static inline __attribute__((always_inline)) unsigned mix(unsigned x)
{
	x ^= x << 13; // INLINED LINE
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

__attribute__((noinline)) long count_over(const unsigned char *b, size_t n, Filter f)
{
	long kept = 0;

	for (size_t i = 0; i < n; i++)
		if (f.keep(b[i])) { // HOT BRANCH
			__asm__ volatile("" ::: "memory");
			kept += b[i];
		}
	return kept;
}

__attribute__((noinline)) long count_over(const unsigned char *b, size_t n, int limit)
{
	long kept = 0;

	for (size_t i = 0; i < n; i++)
		kept += b[i] > limit;
	return kept;
}

} // namespace shapes

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], 0, 10) : 100000;
	unsigned char *b = static_cast<unsigned char *>(malloc(n));
	unsigned x = 2463534242u;
	long total = 0;

	if (!b)
		return 1;
	for (size_t i = 0; i < n; i++) {
		x = shapes::mix(x);
		b[i] = static_cast<unsigned char>(x);
	}
	for (int pass = 0; pass < 5; pass++)
		total += shapes::count_over(b, n, shapes::Filter{ 127 }) + shapes::count_over(b, n, 200);
	printf("%ld\n", total);
	free(b);
	return 0;
}
