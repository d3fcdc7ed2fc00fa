/*
 * lib.c: a shared library for the stripped-binary test: after `strip`, only
 * .dynsym names its exported functions, and there is no DWARF.
 */
int lib_square(int x);
int lib_cube(int x);

__attribute__((noinline)) int lib_square(int x)
{
	return x * x;
}

__attribute__((noinline)) int lib_cube(int x)
{
	return lib_square(x) * x;
}
