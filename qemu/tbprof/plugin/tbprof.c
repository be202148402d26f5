/* tbprof: a QEMU TCG plugin that counts the guest instructions executed per translation block.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * For every block QEMU translates it registers two inline additions (no callback: the counters
 * are bumped by the generated code itself): the block's instruction count and 1, into a table
 * slot keyed by the block's guest virtual address — a block translated again (after a TLB or
 * code-buffer flush) shares its slot. At exit it writes "vaddr instructions executions" lines
 * to $TBPROF_OUT (default /tmp/tbprof.txt), which `go run ./qemu/tbprof` symbolizes.
 *
 * Written here rather than taken from QEMU's contrib/plugins (hotblocks.c does much the same)
 * because Debian's QEMU packages ship neither the built plugins nor qemu-plugin.h; the
 * declarations below are the plugin API version 1 (QEMU 4.2-8.x) functions this file uses, as
 * include/qemu/qemu-plugin.h declares them. The inline additions are not atomic: vCPUs on host
 * threads of their own would race on them (QEMU's own note on inline ops), so gmpos's runner
 * gives a plugin run with several vCPUs -accel tcg,thread=single, which runs them in turn.
 *
 * Build: make tbprof (gcc -O2 -shared -fPIC). Use: gmpos run -plugin build/libtbprof.so PKG.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
extern void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
extern uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
extern size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
extern void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op, void *ptr, uint64_t imm);
extern void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* An open-addressing table of blocks, fixed size: a guest whose hot code spans more than
 * NSLOTS distinct blocks loses the excess (counted in "dropped"). */
#define NSLOTS (1 << 20)
struct slot { uint64_t va, insns, execs; };
static struct slot table[NSLOTS];
static uint64_t used, dropped;
static struct slot overflow; /* where the blocks that found no slot count */

static struct slot *find(uint64_t va) {
	uint64_t h = (va * 0x9E3779B97F4A7C15ull) >> 44;
	for (uint64_t i = 0; i < 64; i++) {
		struct slot *s = &table[(h + i) & (NSLOTS - 1)];
		if (s->va == va)
			return s;
		if (s->va == 0) {
			s->va = va;
			used++;
			return s;
		}
	}
	dropped++;
	return &overflow;
}

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
	uint64_t va = qemu_plugin_tb_vaddr(tb);
	struct slot *s = find(va ? va : 1); /* 0 marks a free slot */
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &s->insns, qemu_plugin_tb_n_insns(tb));
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &s->execs, 1);
}

static void finished(qemu_plugin_id_t id, void *p) {
	const char *path = getenv("TBPROF_OUT");
	FILE *f = fopen(path ? path : "/tmp/tbprof.txt", "w");
	if (!f) {
		perror("tbprof");
		return;
	}
	for (uint64_t i = 0; i < NSLOTS; i++)
		if (table[i].va && table[i].insns)
			fprintf(f, "%llx %llu %llu\n", (unsigned long long)table[i].va,
				(unsigned long long)table[i].insns, (unsigned long long)table[i].execs);
	if (dropped)
		fprintf(stderr, "tbprof: %llu blocks found no slot; their counts are lost\n", (unsigned long long)dropped);
	fclose(f);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
	qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
	qemu_plugin_register_atexit_cb(id, finished, NULL);
	return 0;
}
