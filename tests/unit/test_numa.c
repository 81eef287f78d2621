/*
 * test_numa.c - NUMA nodes and memory blocks read from a fake sysfs tree
 * (src/record/numa.c), the facts of NUMA_TOPOLOGY and MEM_TOPOLOGY.
 */
#include "test_helpers.h"

#include "record/numa.h"

static void node(int n, const char *cpus, unsigned long total, unsigned long free_kb)
{
	char rel[128], text[512];
	snprintf(rel, sizeof(rel), "devices/system/node/node%d/cpulist", n);
	th_root_put(rel, cpus);
	snprintf(rel, sizeof(rel), "devices/system/node/node%d/meminfo", n);
	snprintf(text, sizeof(text),
		 "Node %d MemTotal:       %lu kB\nNode %d MemFree:        %lu kB\nNode %d MemUsed:     1 kB\n",
		 n, total, n, free_kb, n);
	th_root_put(rel, text);
}

/* An entry memoryM in node N's directory (the kernel's are symlinks). */
static void block(int n, int m)
{
	th_mkdirs("%s/devices/system/node/node%d/memory%d", th_root, n, m);
}

static void test_numa_read_two_nodes_in_online_order_with_memory_and_cpus(void **state)
{
	(void)state;
	th_root_put("devices/system/node/online", "0-1\n");
	node(0, "0-1\n", 4679892, 3423992);
	node(1, "\n", 1000, 500);
	struct numa_info n;
	assert_int_equal(numa_read(th_root, &n), 0);
	assert_int_equal(n.nr_nodes, 2);
	assert_int_equal(n.nodes[0].node, 0);
	assert_int_equal(n.nodes[0].mem_total_kb, 4679892);
	assert_int_equal(n.nodes[0].mem_free_kb, 3423992);
	assert_string_equal(n.nodes[0].cpus, "0-1");
	assert_int_equal(n.nodes[1].node, 1);
	assert_string_equal(n.nodes[1].cpus, "");     /* a memory-only node */
	/* no memory/block_size_bytes: no MEM_TOPOLOGY */
	assert_int_equal(n.block_size, 0);
	assert_int_equal(n.nr_mem, 0);
	numa_free(&n);
}

static void test_numa_read_node_without_meminfo_gives_no_topology_rather_than_half(void **state)
{
	(void)state;
	th_root_put("devices/system/node/online", "0-1");
	node(0, "0", 10, 5);
	th_root_put("devices/system/node/node1/cpulist", "1");
	struct numa_info n;
	assert_int_equal(numa_read(th_root, &n), 0);
	assert_int_equal(n.nr_nodes, 0);
	assert_null(n.nodes);
	numa_free(&n);
}

static void test_numa_read_no_node_directory_is_empty_not_an_error(void **state)
{
	(void)state;
	struct numa_info n;
	assert_int_equal(numa_read(th_root, &n), 0);
	assert_int_equal(n.nr_nodes, 0);
	assert_int_equal(n.nr_mem, 0);
	assert_int_equal(n.block_size, 0);
	numa_free(&n);
}

static void test_numa_read_memory_blocks_as_bitmap_sized_by_highest_index(void **state)
{
	(void)state;
	th_root_put("devices/system/memory/block_size_bytes", "8000000\n");
	th_root_put("devices/system/node/online", "0,2");
	node(2, "1", 100, 50);
	node(0, "0", 100, 50);
	for (int m = 0; m < 24; m++)
		block(0, m);
	for (int m = 32; m < 200; m++)
		block(0, m);
	block(2, 300);
	/* not blocks: */
	th_mkdirs("%s/devices/system/node/node0/memory_failure", th_root);
	th_mkdirs("%s/devices/system/node/node0/memory12x", th_root);
	th_root_put("devices/system/node/has_memory", "0,2");
	struct numa_info n;
	assert_int_equal(numa_read(th_root, &n), 0);
	assert_int_equal(n.block_size, 0x8000000);
	assert_int_equal(n.nr_mem, 2);
	/* sorted by node, whatever the directory order */
	assert_int_equal(n.mem[0].node, 0);
	assert_int_equal(n.mem[0].nr_bits, 200);
	assert_int_equal(n.mem[0].bits[0], 0xffffffff00ffffffULL);
	assert_int_equal(n.mem[0].bits[1], ~0ULL);
	assert_int_equal(n.mem[0].bits[2], ~0ULL);
	assert_int_equal(n.mem[0].bits[3], 0xffULL);
	assert_int_equal(n.mem[1].node, 2);
	assert_int_equal(n.mem[1].nr_bits, 301);
	assert_int_equal(n.mem[1].bits[4], 1ULL << (300 - 256));
	assert_int_equal(n.mem[1].bits[0], 0);
	numa_free(&n);
}

static void test_numa_read_node_without_blocks_is_one_empty_bit_as_perf_writes(void **state)
{
	(void)state;
	th_root_put("devices/system/memory/block_size_bytes", "8000000");
	th_mkdirs("%s/devices/system/node/node0", th_root);
	struct numa_info n;
	assert_int_equal(numa_read(th_root, &n), 0);
	assert_int_equal(n.nr_mem, 1);
	assert_int_equal(n.mem[0].nr_bits, 1);
	assert_int_equal(n.mem[0].bits[0], 0);
	numa_free(&n);
}

static void test_numa_read_bad_block_size_gives_no_memory_topology(void **state)
{
	(void)state;
	th_root_put("devices/system/memory/block_size_bytes", "zz");
	th_mkdirs("%s/devices/system/node/node0/memory0", th_root);
	struct numa_info n;
	assert_int_equal(numa_read(th_root, &n), 0);
	assert_int_equal(n.block_size, 0);
	assert_int_equal(n.nr_mem, 0);
	numa_free(&n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TH_FAKE(test_numa_read_two_nodes_in_online_order_with_memory_and_cpus),
		TH_FAKE(test_numa_read_node_without_meminfo_gives_no_topology_rather_than_half),
		TH_FAKE(test_numa_read_no_node_directory_is_empty_not_an_error),
		TH_FAKE(test_numa_read_memory_blocks_as_bitmap_sized_by_highest_index),
		TH_FAKE(test_numa_read_node_without_blocks_is_one_empty_bit_as_perf_writes),
		TH_FAKE(test_numa_read_bad_block_size_gives_no_memory_topology),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
