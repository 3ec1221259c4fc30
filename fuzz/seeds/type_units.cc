// SPDX-License-Identifier: GPL-2.0-only
// type_units.cc - a seed with type units (fuzz/make-seeds.sh): DWARF 4
// .debug_types (g++) and DWARF 5 DW_UT_type units in .debug_info (clang++).
struct S {
	int a;
	long b;
	S *next;
};
S s;
int f(S *p) { return p->a + (int)p->b; }
