// The arm64 Linux ABI's layouts and rules, as code every host compiles and tests.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

// abi_arm64.go fills these layouts for the program; this file holds only their numbers and the
// rules that need no arm64 machine (where a frame goes, which PSTATE a frame may restore, which
// hardware capabilities the ID registers announce), so that abi_arm64_layout_test.go checks
// them on any host against the Go distribution's own arm64 definitions (syscall's and
// golang.org/x/sys/unix's ztypes_linux_arm64.go, runtime/defs_linux_arm64.go). Everything here
// is constants and functions: no variables (zkdata_<arch>.go stays as it is).

// struct stat: arm64 has no asm/stat.h of its own and uses the generic one,
// include/uapi/asm-generic/stat.h (128 bytes; x86-64's differs: st_nlink is 64-bit there and
// comes before st_mode).
const (
	a64StatSize  = 128
	a64StDev     = 0  // unsigned long st_dev
	a64StIno     = 8  // unsigned long st_ino
	a64StMode    = 16 // unsigned int st_mode
	a64StNlink   = 20 // unsigned int st_nlink
	a64StUID     = 24 // unsigned int st_uid
	a64StGID     = 28 // unsigned int st_gid
	a64StRdev    = 32 // unsigned long st_rdev, then unsigned long __pad1
	a64StSize    = 48 // long st_size
	a64StBlksize = 56 // int st_blksize, then int __pad2
	a64StBlocks  = 64 // long st_blocks
	a64StAtime   = 72 // st_atime, st_atime_nsec: a struct timespec's two longs
	a64StMtime   = 88
	a64StCtime   = 104 // then unsigned int __unused4, __unused5
)

// The open flags arm64 redefines (arch/arm64/include/uapi/asm/fcntl.h; x86-64 keeps
// asm-generic/fcntl.h's 0o200000, 0o400000 and 0o40000). The fourth, O_LARGEFILE (0o400000 here,
// 0o100000 there), is implied on 64-bit Linux (force_o_largefile) and the kernel ignores it.
const (
	a64ODirectory = 0o40000
	a64ONofollow  = 0o100000
	a64ODirect    = 0o200000
)

// struct epoll_event (include/uapi/linux/eventpoll.h): EPOLL_PACKED is empty except on x86-64,
// so on arm64 the u64 data is naturally aligned: 4 bytes of padding after events, 16 in all.
const (
	a64EpollEventSize = 16
	a64EpollEvents    = 0 // __poll_t events
	a64EpollData      = 8 // __u64 data
)

// The signal frame (arch/arm64/kernel/signal.c struct rt_sigframe and struct frame_record;
// arch/arm64/include/uapi/asm/ucontext.h, uapi/asm/sigcontext.h). From the handler's SP up:
//
//	sp+0       siginfo_t info (128)
//	sp+128     struct ucontext uc (4560): uc_flags, uc_link, uc_stack (stack_t, 24), uc_sigmask
//	           (8), __unused[120] (glibc's sigset_t is 1024 bits), then, 16-byte aligned, struct
//	           sigcontext uc_mcontext (4384): fault_address, regs[31] (x0..x30), sp, pc, pstate,
//	           __reserved[4096] (16-byte aligned): the records — fpsimd_context first, where
//	           Linux puts it and debuggers look (runtime/export_debug_arm64_test.go reads V0 at
//	           __reserved+16), then the end record {0, 0}
//	sp+4688    struct frame_record {fp, lr}: the interrupted x29 and x30, which x29 points at,
//	           so that an unwinder walks from the handler into the interrupted code
const (
	a64SigframeInfo    = 0
	a64SigframeUc      = 128  // offsetof(struct rt_sigframe, uc): after the 128-byte siginfo_t
	a64SigframeSize    = 4688 // sizeof(struct rt_sigframe), a multiple of 16
	a64FrameRecordSize = 16   // sizeof(struct frame_record)

	a64UcFlags      = 0
	a64UcLink       = 8
	a64UcStack      = 16 // stack_t: ss_sp, ss_flags (int, padded), ss_size
	a64UcSigmask    = 40 // sigset_t: the kernel's 64 signals
	a64UcMcontext   = 176
	a64UcontextSize = 4560

	a64ScFaultAddress = 0
	a64ScRegs         = 8 // regs[i] at a64ScRegs + 8*i
	a64ScSP           = 256
	a64ScPC           = 264
	a64ScPstate       = 272
	a64ScReserved     = 288 // __reserved, aligned to 16
	a64ScReservedSize = 4096
	a64SigcontextSize = 4384

	// The records in __reserved: struct _aarch64_ctx {u32 magic, u32 size} heads each.
	a64CtxHeadSize = 8
	a64FpsimdMagic = 0x46508001 // FPSIMD_MAGIC: struct fpsimd_context
	a64FpsimdSize  = 528        // head, u32 fpsr, u32 fpcr, __uint128_t vregs[32]
	a64FpsimdFpsr  = 8
	a64FpsimdFpcr  = 12
	a64FpsimdVregs = 16
	a64EsrMagic    = 0x45535201 // ESR_MAGIC: struct esr_context {head, u64 esr}, 16 bytes
	a64ExtraMagic  = 0x45585401 // EXTRA_MAGIC: struct extra_context, more records elsewhere

	// MINSIGSTKSZ (arch/arm64/include/uapi/asm/signal.h), room for the frame above:
	// sigaltstack refuses smaller stacks (ENOMEM).
	a64MinSigStkSz = 5120
)

// a64SigframeAt places a signal frame below spTop (the interrupted SP, or the top of the
// alternate stack) as arm64 Linux's get_sigframe does: the frame record 16-byte aligned just
// below spTop, the rt_sigframe right under it. AAPCS64 has no red zone, so nothing below SP is
// skipped; the handler's SP is the frame, 16-byte aligned as AAPCS64 requires at a call.
func a64SigframeAt(spTop uintptr) (frame, record uintptr) {
	record = (spTop - a64FrameRecordSize) &^ 15
	return record - a64SigframeSize, record
}

// PSTATE as SPSR_EL1 holds it for an exception taken from EL0 (arch/arm64/include/uapi/asm/ptrace.h).
const (
	a64PsrModeMask = 0xf // M[3:0]: 0 is EL0t
	a64PsrMode32   = 0x10
	a64PsrF        = 0x40
	a64PsrI        = 0x80
	a64PsrA        = 0x100
	a64PsrD        = 0x200
	a64PsrBtype    = 0xc00
	a64PsrSSBS     = 0x1000
	a64PsrIL       = 0x100000
	a64PsrSS       = 0x200000
	a64PsrPAN      = 0x400000
	a64PsrUAO      = 0x800000
	a64PsrDIT      = 0x1000000
	a64PsrTCO      = 0x2000000
	a64PsrNZCV     = 0xf0000000

	a64PsrDAIF = a64PsrD | a64PsrA | a64PsrI | a64PsrF
	// a64PsrUser are the bits a signal frame may give back: the flags, and the user-controlled
	// DIT, SSBS and BTYPE — what Linux's valid_native_regs keeps (arch/arm64/kernel/ptrace.c,
	// SPSR_EL1_AARCH64_RES0_BITS) less TCO (gmpos has no MTE) and SS (no single-stepping).
	a64PsrUser = a64PsrNZCV | a64PsrDIT | a64PsrSSBS | a64PsrBtype
)

// a64UserPSTATE checks a PSTATE an rt_sigreturn frame asks for, as Linux's valid_native_regs:
// it must be EL0t (M[4:0] zero: not AArch32, not EL1 — an ERET to EL1 would hand the kernel to
// the program) with D, A, I and F clear. Then only the a64PsrUser bits are kept. false: the
// frame is bad, the thread gets SIGSEGV (Linux: badframe).
func a64UserPSTATE(ps uint64) (uint64, bool) {
	if ps&(a64PsrModeMask|a64PsrMode32|a64PsrDAIF) != 0 {
		return 0, false
	}
	return ps & a64PsrUser, true
}

// a64FindFpsimd walks the records of a sigcontext's __reserved area at base (16-byte aligned,
// already checked readable for a64ScReservedSize bytes) as Linux's parse_user_sigframe does, and
// returns the fpsimd_context's address, or 0 if the records are malformed or hold none: each
// record 16-byte aligned and inside the area, at least a head long, fpsimd_context at most once
// and whole, esr_context ignored, the end record {0, 0} last. Records gmpos never writes — SVE,
// ZA, EXTRA — are invalid here, as Linux finds them on a CPU without the feature.
func a64FindFpsimd(base uintptr) uintptr {
	fp := uintptr(0)
	for off := uintptr(0); ; {
		if a64ScReservedSize-off < a64CtxHeadSize || off&15 != 0 {
			return 0
		}
		magic, size := load32(base+off), uintptr(load32(base+off+4))
		if a64ScReservedSize-off < size {
			return 0
		}
		switch magic {
		case 0:
			if size != 0 {
				return 0
			}
			return fp
		case a64FpsimdMagic:
			if fp != 0 || size < a64FpsimdSize {
				return 0
			}
			fp = base + off
		case a64EsrMagic:
		default:
			return 0
		}
		if size < a64CtxHeadSize {
			return 0
		}
		off += size
	}
}

// HWCAP and HWCAP2 bits (arch/arm64/include/uapi/asm/hwcap.h): what the auxiliary vector's
// AT_HWCAP and AT_HWCAP2 tell a program it may use. Go's internal/cpu reads AT_HWCAP for LSE
// atomics (HWCAP_ATOMICS), AES, PMULL, SHA1/2/3/512, CRC32 and DIT.
const (
	a64HwcapFP       = 1 << 0
	a64HwcapASIMD    = 1 << 1
	a64HwcapEVTSTRM  = 1 << 2
	a64HwcapAES      = 1 << 3
	a64HwcapPMULL    = 1 << 4
	a64HwcapSHA1     = 1 << 5
	a64HwcapSHA2     = 1 << 6
	a64HwcapCRC32    = 1 << 7
	a64HwcapATOMICS  = 1 << 8
	a64HwcapFPHP     = 1 << 9
	a64HwcapASIMDHP  = 1 << 10
	a64HwcapCPUID    = 1 << 11
	a64HwcapASIMDRDM = 1 << 12
	a64HwcapJSCVT    = 1 << 13
	a64HwcapFCMA     = 1 << 14
	a64HwcapLRCPC    = 1 << 15
	a64HwcapDCPOP    = 1 << 16
	a64HwcapSHA3     = 1 << 17
	a64HwcapSM3      = 1 << 18
	a64HwcapSM4      = 1 << 19
	a64HwcapASIMDDP  = 1 << 20
	a64HwcapSHA512   = 1 << 21
	a64HwcapSVE      = 1 << 22
	a64HwcapASIMDFHM = 1 << 23
	a64HwcapDIT      = 1 << 24
	a64HwcapUSCAT    = 1 << 25
	a64HwcapILRCPC   = 1 << 26
	a64HwcapFLAGM    = 1 << 27
	a64HwcapSSBS     = 1 << 28
	a64HwcapSB       = 1 << 29
	a64HwcapPACA     = 1 << 30
	a64HwcapPACG     = 1 << 31

	a64Hwcap2DCPODP = 1 << 0
	a64Hwcap2SVE2   = 1 << 1
	a64Hwcap2FLAGM2 = 1 << 7
	a64Hwcap2FRINT  = 1 << 8
	a64Hwcap2I8MM   = 1 << 13
	a64Hwcap2BF16   = 1 << 14
	a64Hwcap2DGH    = 1 << 15
	a64Hwcap2RNG    = 1 << 16
)

// The names /proc/cpuinfo's Features line gives each bit, in bit order (arch/arm64/kernel/cpuinfo.c
// hwcap_str): a64HwcapNames for AT_HWCAP bits 0..31, a64Hwcap2Names for AT_HWCAP2 bits 0..17.
const (
	a64HwcapNames = "fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid " +
		"asimdrdm jscvt fcma lrcpc dcpop sha3 sm3 sm4 asimddp sha512 sve asimdfhm dit uscat " +
		"ilrcpc flagm ssbs sb paca pacg"
	a64Hwcap2Names = "dcpodp sve2 sveaes svepmull svebitperm svesha3 svesm4 flagm2 frint " +
		"svei8mm svef32mm svef64mm svebf16 i8mm bf16 dgh rng bti"
)

// a64Word returns the i-th space-separated word of names ("" past the last), without allocating.
func a64Word(names string, i int) string {
	start := 0
	for j := 0; j <= len(names); j++ {
		if j == len(names) || names[j] == ' ' {
			if i == 0 {
				return names[start:j]
			}
			i--
			start = j + 1
		}
	}
	return ""
}

// a64IDField is the 4-bit field at shift of an ID register (Arm ARM D19.2, "ID_AA64*_EL1").
func a64IDField(reg uint64, shift uint) uint64 { return reg >> shift & 0xf }

// a64Hwcaps computes AT_HWCAP and AT_HWCAP2 from the ID registers ID_AA64PFR0_EL1,
// ID_AA64ISAR0_EL1 and ID_AA64ISAR1_EL1, as Linux's arm64_elf_hwcaps table does
// (arch/arm64/kernel/cpufeature.c), for the features a program can use with no help from the
// kernel. Left out on purpose, whatever the CPU has:
//   - CPUID: it promises that the kernel emulates MRS of the ID registers at EL0 (Go's internal/cpu
//     then reads MIDR_EL1 itself); gmpos does not, and the program would die of SIGILL;
//   - SVE, SME, MTE, BTI, PACA/PACG: state or controls gmpos neither saves nor enables;
//   - EVTSTRM: the timer's event stream, which gmpos does not turn on (CNTKCTL_EL1.EVNTEN);
//   - DCPOP/DCPODP: DC CVAP/CVADP at EL0 trap unless SCTLR_EL1.UCI is set;
//   - USCAT, SSBS: their fields are in ID_AA64MMFR2_EL1 and ID_AA64PFR1_EL1, not read here.
//
// FP and AdvSIMD are signed fields: 0xf means absent, 0 present, 1 with half precision.
func a64Hwcaps(pfr0, isar0, isar1 uint64) (hwcap, hwcap2 uint64) {
	if v := a64IDField(pfr0, 16); v != 0xf { // FP
		hwcap |= a64HwcapFP
		if v >= 1 {
			hwcap |= a64HwcapFPHP
		}
	}
	if v := a64IDField(pfr0, 20); v != 0xf { // AdvSIMD
		hwcap |= a64HwcapASIMD
		if v >= 1 {
			hwcap |= a64HwcapASIMDHP
		}
	}
	if a64IDField(pfr0, 48) >= 1 { // DIT
		hwcap |= a64HwcapDIT
	}
	// ID_AA64ISAR0_EL1.
	if v := a64IDField(isar0, 4); v >= 1 { // AES
		hwcap |= a64HwcapAES
		if v >= 2 {
			hwcap |= a64HwcapPMULL
		}
	}
	if a64IDField(isar0, 8) >= 1 { // SHA1
		hwcap |= a64HwcapSHA1
	}
	if v := a64IDField(isar0, 12); v >= 1 { // SHA2
		hwcap |= a64HwcapSHA2
		if v >= 2 {
			hwcap |= a64HwcapSHA512
		}
	}
	if a64IDField(isar0, 16) >= 1 { // CRC32
		hwcap |= a64HwcapCRC32
	}
	if a64IDField(isar0, 20) >= 2 { // Atomic: 2 is FEAT_LSE
		hwcap |= a64HwcapATOMICS
	}
	if a64IDField(isar0, 28) >= 1 { // RDM
		hwcap |= a64HwcapASIMDRDM
	}
	if a64IDField(isar0, 32) >= 1 { // SHA3
		hwcap |= a64HwcapSHA3
	}
	if a64IDField(isar0, 36) >= 1 { // SM3
		hwcap |= a64HwcapSM3
	}
	if a64IDField(isar0, 40) >= 1 { // SM4
		hwcap |= a64HwcapSM4
	}
	if a64IDField(isar0, 44) >= 1 { // DP
		hwcap |= a64HwcapASIMDDP
	}
	if a64IDField(isar0, 48) >= 1 { // FHM
		hwcap |= a64HwcapASIMDFHM
	}
	if v := a64IDField(isar0, 52); v >= 1 { // TS
		hwcap |= a64HwcapFLAGM
		if v >= 2 {
			hwcap2 |= a64Hwcap2FLAGM2
		}
	}
	if a64IDField(isar0, 60) >= 1 { // RNDR
		hwcap2 |= a64Hwcap2RNG
	}
	// ID_AA64ISAR1_EL1.
	if a64IDField(isar1, 12) >= 1 { // JSCVT
		hwcap |= a64HwcapJSCVT
	}
	if a64IDField(isar1, 16) >= 1 { // FCMA
		hwcap |= a64HwcapFCMA
	}
	if v := a64IDField(isar1, 20); v >= 1 { // LRCPC
		hwcap |= a64HwcapLRCPC
		if v >= 2 {
			hwcap |= a64HwcapILRCPC
		}
	}
	if a64IDField(isar1, 32) >= 1 { // FRINTTS
		hwcap2 |= a64Hwcap2FRINT
	}
	if a64IDField(isar1, 36) >= 1 { // SB
		hwcap |= a64HwcapSB
	}
	if a64IDField(isar1, 44) >= 1 { // BF16
		hwcap2 |= a64Hwcap2BF16
	}
	if a64IDField(isar1, 48) >= 1 { // DGH
		hwcap2 |= a64Hwcap2DGH
	}
	if a64IDField(isar1, 52) >= 1 { // I8MM
		hwcap2 |= a64Hwcap2I8MM
	}
	return hwcap, hwcap2
}
