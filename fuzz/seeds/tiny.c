// SPDX-License-Identifier: GPL-2.0-only
/*
 * tiny.c - a small seed for the fuzz target (fuzz/make-seeds.sh): one of
 * each kind of type, a per-CPU and a global variable, static, global,
 * variadic and inlined functions, and BTF tags where the compiler has them.
 */
#if defined(__clang__)
#define TAG(x) __attribute__((btf_decl_tag(x)))
#define TTAG(x) __attribute__((btf_type_tag(x)))
#else
#define TAG(x)
#define TTAG(x)
#endif
#define PERCPU __attribute__((section(".data..percpu")))

typedef unsigned long long u64;
enum small { S_NEG = -1, S_ONE = 1 };
enum big { B_HUGE = 0xfffffffffffULL };
union u { int i; float f; char c[3]; };
struct flex { int n; u64 v[]; };
struct bits {
	unsigned int a : 3, b : 13;
	signed char c : 2;
	const volatile int *restrict p;
	int (*fn)(struct bits *, ...);
	union u un;
	enum small sm;
	enum big bg;
	long double ld;
	_Bool flag;
	int TTAG("user") *up;
	char m[2][3];
	struct { int anon; };
} TAG("bits");

PERCPU struct bits pcpu_bits;
PERCPU int pcpu_count = 1;
struct flex *global_flex;
int global_int TAG("g") = 3;
static const char ro[] = "tiny";

static int __attribute__((noinline)) helper(struct bits *b, int x)
{
	return b->a + x + ro[x & 3];
}

int tiny_varargs(struct bits *b, ...)
{
	return helper(b, 1);
}

static inline int inl(int x) { return x * 2; }

int TAG("kfunc") tiny_entry(union u *u, enum big e, u64 v)
{
	pcpu_bits.fn = tiny_varargs;
	return inl(u->i) + (int)e + (int)v + helper(&pcpu_bits, pcpu_count) +
	       (global_flex ? global_flex->n : 0) + global_int;
}
