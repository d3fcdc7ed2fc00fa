// wl-vcall.cpp: a virtual call whose target follows random data: the indirect call
// mispredicts (issue 16 item 7: it is an indirect call, not an indirect jump).
// Built by test_answers.py with g++ -O1 -g.
#include <cstdio>
#include <vector>

struct Shape {
	virtual ~Shape() {}
	virtual long area() const = 0;
	virtual long edges() const = 0;
};
struct Sq : Shape {
	long area() const override { return 4; }
	long edges() const override { return 4; }
};
struct Tri : Shape {
	long area() const override { return 3; }
	long edges() const override { return 3; }
};
struct Hex : Shape {
	long area() const override { return 6; }
	long edges() const override { return 6; }
};

__attribute__((noinline)) static long total(const std::vector<Shape *> &v)
{
	long s = 0;
	for (const Shape *p : v)
		s += p->edges(); // VCALL-LINE
	return s;
}

int main()
{
	static Sq sq;
	static Tri tri;
	static Hex hex;
	Shape *kinds[] = { &sq, &tri, &hex };
	std::vector<Shape *> v(50000);
	unsigned x = 7;
	for (auto &p : v) {
		x = x * 1103515245u + 12345u;
		p = kinds[(x >> 16) % 3];
	}
	long s = 0;
	for (int pass = 0; pass < 10; pass++)
		s += total(v);
	printf("%ld\n", s);
	return 0;
}
