// SPDX-License-Identifier: GPL-2.0-only
/*
 * d2b_extmod - an out-of-tree module, as DKMS builds one (tests/extmod.sh):
 * its own struct, anonymous union and struct, enum and bitfield, and
 * pointers to the kernel's types, so that its distilled base holds named
 * structs, integers and the references between them.
 */
#include <linux/module.h>
#include <linux/list.h>
#include <linux/fs.h>
#include <linux/slab.h>

struct d2b_item {
	struct list_head node;
	const struct file_operations *fops;
	union {
		u64 key;
		struct { u32 lo, hi; } parts;
	};
	enum { D2B_A, D2B_B = 7 } state;
	unsigned int flags : 3;
};

static LIST_HEAD(d2b_items);

int d2b_add(u64 key, const struct file_operations *fops);

noinline int d2b_add(u64 key, const struct file_operations *fops)
{
	struct d2b_item *it = kzalloc(sizeof(*it), GFP_KERNEL);

	if (!it)
		return -ENOMEM;
	it->key = key;
	it->fops = fops;
	list_add(&it->node, &d2b_items);
	return 0;
}
EXPORT_SYMBOL_GPL(d2b_add);

static int __init d2b_init(void)
{
	return d2b_add(42, NULL);
}

static void __exit d2b_exit(void)
{
	struct d2b_item *it, *tmp;

	list_for_each_entry_safe(it, tmp, &d2b_items, node)
		kfree(it);
}

module_init(d2b_init);
module_exit(d2b_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dwarf2btf test: an out-of-tree module");
