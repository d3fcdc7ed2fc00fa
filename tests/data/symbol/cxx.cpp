/*
 * cxx.cpp: C++ for the demangling and inline-chain tests: namespaces, a class
 * template with member functions, a function template, operator overloads and
 * a lambda, compiled with g++ -O2 -g at test time.
 */
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace geo {
namespace detail {

template <typename T> struct Box {
	T lo, hi;

	__attribute__((noinline)) T width() const { return hi - lo; }
	inline T clamp(T v) const { return v < lo ? lo : (v > hi ? hi : v); }
	Box operator+(const Box &o) const { return Box{ lo + o.lo, hi + o.hi }; }
};

} // namespace detail

template <typename T> __attribute__((noinline)) T sum_clamped(const std::vector<T> &v, const detail::Box<T> &b)
{
	T s = 0;

	for (const T &x : v)
		s += b.clamp(x);
	return s;
}

} // namespace geo

int main(int argc, char **argv)
{
	int n = argc > 1 ? (int)std::strtol(argv[1], nullptr, 10) : 1000;
	std::vector<long> v;
	geo::detail::Box<long> b{ 10, 200 };
	geo::detail::Box<double> bd{ 0.5, 2.5 };

	for (int i = 0; i < n; i++)
		v.push_back((i * 37) % 311);
	auto twice = [&](long x) { return 2 * geo::sum_clamped(v, b) + x; };
	long r = twice(b.width()) + (long)(b + b).width() + (long)bd.width();
	std::printf("%ld\n", r);
	return 0;
}
