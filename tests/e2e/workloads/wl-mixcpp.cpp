/*
 * wl-mixcpp: three C++ functions, three bottlenecks, for the per-function top-down of
 * C++ code (names as C++ spells them), each guilty line marked "guilty:":
 *   shapes::total_area()  a virtual call on shapes of random types (Bad Speculation >
 *                         Branch Mispredicts: the indirect call's target is unpredictable);
 *   table::probe_all()    a 64 MiB table probed at hashed, independent places (Backend
 *                         Bound > Memory Bound: the misses overlap, but every one misses);
 *   chain::roots()        a chain of square roots, each waiting for the one before (Backend
 *                         Bound > Core Bound: the divider's latency; -fno-math-errno keeps it
 *                         one instruction).
 * Never inlined, so each keeps its own lines.
 */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

namespace {
uint64_t rng = 0x9E3779B97F4A7C15ull;

uint64_t next()
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}
} // namespace

namespace shapes {
struct Shape {
	virtual ~Shape() = default;
	virtual double area() const = 0;
};
struct Square : Shape {
	double s = 2;
	double area() const override { return s * s; }
};
struct Circle : Shape {
	double r = 1;
	double area() const override { return 3.14159 * r * r; }
};
struct Rect : Shape {
	double w = 2, h = 3;
	double area() const override { return w * h; }
};
struct Tri : Shape {
	double b = 2, h = 5;
	double area() const override { return b * h / 2; }
};

/* The shapes in a random order of 1 Mi calls (an index array): a repeating order of 512 would
 * be learnt by heart by an indirect predictor with a long history (ITTAGE), as hardware does */
__attribute__((noinline)) double total_area(const std::vector<std::unique_ptr<Shape>> &v,
					   const std::vector<uint32_t> &order)
{
	double sum = 0;

	for (uint32_t k : order)
		sum += v[k]->area(); /* guilty: total_area - a virtual call to a random type */
	return sum;
}
} // namespace shapes

namespace table {
constexpr size_t SLOTS = size_t(1) << 23; /* 64 MiB of 8-byte slots */

__attribute__((noinline)) uint64_t probe_all(const uint64_t *t, size_t probes)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < probes; i++)
		sum += t[(i * 0x9E3779B97F4A7C15ull >> 17) & (SLOTS - 1)]; /* guilty: probe_all - an independent miss */
	return sum;
}
} // namespace table

namespace chain {
__attribute__((noinline)) double roots(double x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		x = std::sqrt(x + 1.5); /* guilty: roots - each root waits for the one before */
	return x;
}
} // namespace chain

/* .bss, not the allocator: MALLOC_PERTURB_ (set by the test runner) would make the heap fill 64 MiB */
static uint64_t t[table::SLOTS];

int main()
{
	std::vector<std::unique_ptr<shapes::Shape>> v;

	for (int i = 0; i < 512; i++) { /* 512 small objects: they stay in the L1 data cache */
		switch (next() % 4) {
		case 0: v.emplace_back(new shapes::Square); break;
		case 1: v.emplace_back(new shapes::Circle); break;
		case 2: v.emplace_back(new shapes::Rect); break;
		default: v.emplace_back(new shapes::Tri); break;
		}
	}
	std::vector<uint32_t> order(1u << 20);
	for (auto &k : order)
		k = (uint32_t)(next() % v.size());
	for (size_t i = 0; i < table::SLOTS; i += 512)
		t[i] = i;
	std::printf("%g %llu %g\n", shapes::total_area(v, order), (unsigned long long)table::probe_all(t, 400000),
		    chain::roots(2.0, 150000));
	return 0;
}
