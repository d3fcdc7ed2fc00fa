// wl-filter.cpp: a template filter whose loop line holds several branches: the loop test, the
// emptiness check and the data-dependent test (random bytes: half mispredict). Built by
// test_why_branches.py with g++ -O1 -g -fno-if-conversion -fno-if-conversion2 (issue 16, item 1).
#include <cstdio>
#include <cstdlib>
#include <vector>

template <typename T, typename P>
static long count_if_nonempty(const std::vector<T> &v, P pred)
{
	long n = 0;
	for (size_t i = 0; !v.empty() && i < v.size(); i++) if (pred(v[i])) n++; // MULTI-BRANCH LINE
	return n;
}

int main(int argc, char **argv)
{
	size_t len = argc > 1 ? strtoul(argv[1], 0, 10) : 200000;
	std::vector<unsigned char> v(len);
	unsigned x = 12345;
	for (auto &b : v) { x = x * 1103515245u + 12345u; b = (unsigned char)(x >> 16); }
	long total = 0;
	for (int pass = 0; pass < 10; pass++)
		total += count_if_nonempty(v, [](unsigned char c) { return c < 128; });
	printf("%ld\n", total);
	return 0;
}
