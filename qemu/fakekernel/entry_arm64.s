// Fake kernel entry points for arm64 `virt` (see doc.go): the runner's side of
// docs/contract.md "arm64 virt" — start marker, records on the one PL011, semihosting exit.
// SPDX-License-Identifier: BSD-3-Clause
//
// Entered through the Image header's branch with the MMU and caches off (Linux
// Documentation/arch/arm64/booting.rst §4), so every data access is to Device memory, where an
// unaligned access faults: the code only makes aligned 32-bit loads and stores. There is no
// stack; the helpers are leaf routines called with BL (link in R30).

#include "textflag.h"

// The PL011 (Arm PrimeCell UART PL011 TRM, DDI 0183, §3.2 "Summary of registers") at `virt`'s
// address (QEMU hw/arm/virt.c, VIRT_UART).
#define UART 0x09000000
#define UARTDR 0x00
#define UARTFR 0x18  // flags: bit 3 BUSY, bit 4 RXFE, bit 5 TXFF
#define UARTLCR_H 0x2c // bit 4 FEN (FIFOs on), bits 5-6 WLEN (3: 8 bits)
#define UARTCR 0x30  // bit 0 UARTEN, bit 8 TXE, bit 9 RXE

// PUTC(c): c to the UART (putc<>).
#define PUTC(c) MOVD c, R0; BL putc<>(SB)

// Arm semihosting (Semihosting for AArch32 and AArch64, §"The semihosting interface"): HLT
// #0xF000 with the operation in W0 and the parameter block's address in X1. SYS_EXIT (0x18)
// on AArch64 takes {reason, subcode}: ADP_Stopped_ApplicationExit (0x20026) with the exit
// status as subcode is what QEMU turns into its own exit status (target=native).
#define HLT_SEMIHOSTING WORD $0xd45e0000 // hlt #0xf000
#define SEMIEXIT(block) MOVD $0x18, R0; MOVD $block(SB), R1; HLT_SEMIHOSTING

DATA exit7<>+0(SB)/8, $0x20026
DATA exit7<>+8(SB)/8, $7
GLOBL exit7<>(SB), RODATA, $16
DATA exit0<>+0(SB)/8, $0x20026
DATA exit0<>+8(SB)/8, $0
GLOBL exit0<>(SB), RODATA, $16
DATA exit3<>+0(SB)/8, $0x20026
DATA exit3<>+8(SB)/8, $3
GLOBL exit3<>(SB), RODATA, $16

// uartinit<>: 8 bits with FIFOs, then transmitter, receiver and UART on. QEMU 7.2's PL011
// sends without UARTEN, but the TRM's UARTCR wants it set before any transfer, and nothing
// (no firmware) has set it on virt. Clobbers R9, R10.
TEXT uartinit<>(SB), NOSPLIT|NOFRAME, $0
	MOVD $UART, R9
	MOVW $0x70, R10
	MOVW R10, UARTLCR_H(R9)
	MOVW $0x301, R10
	MOVW R10, UARTCR(R9)
	RET

// putc<>: the low byte of R0 to the UART once its transmit FIFO has room (FR.TXFF clear).
// Clobbers R9, R10.
TEXT putc<>(SB), NOSPLIT|NOFRAME, $0
	MOVD $UART, R9
wait:
	MOVWU UARTFR(R9), R10
	TBNZ $5, R10, wait
	MOVW R0, UARTDR(R9)
	RET

// putw<>: the four bytes of W0, lowest first (a 32-bit load's bytes in memory order).
// Clobbers R0, R9, R10, R11.
TEXT putw<>(SB), NOSPLIT|NOFRAME, $0
	MOVD $UART, R9
	MOVW $4, R11
next:
	MOVWU UARTFR(R9), R10
	TBNZ $5, R10, next
	MOVW R0, UARTDR(R9) // the UART takes bits 7:0
	LSRW $8, R0, R0
	SUBW $1, R11, R11
	CBNZW R11, next
	RET

// drain<>: wait until the UART has sent everything (FR.BUSY clear), so that nothing is in
// flight when QEMU exits. Clobbers R9, R10.
TEXT drain<>(SB), NOSPLIT|NOFRAME, $0
	MOVD $UART, R9
busy:
	MOVWU UARTFR(R9), R10
	TBNZ $3, R10, busy
	RET

// EntryA64: firmware-like noise, the marker, records entry, "hello\n" (stdout),
// "fake stderr\n" (stderr), log, exit 7; then SYS_EXIT 7.
TEXT ·EntryA64(SB), NOSPLIT|NOFRAME, $0
	BL uartinit<>(SB)
	PUTC($0x66)
	PUTC($0x77)
	PUTC($0x0d)
	PUTC($0x0a)
	PUTC($0x1b)
	PUTC($0x5d)
	PUTC($0x67)
	PUTC($0x6d)
	PUTC($0x70)
	PUTC($0x6f)
	PUTC($0x73)
	PUTC($0x2d)
	PUTC($0x73)
	PUTC($0x74)
	PUTC($0x61)
	PUTC($0x72)
	PUTC($0x74)
	PUTC($0x07)
	// record: channel 3, 6 bytes, 'entry\n'
	PUTC($0x03)
	PUTC($0x06)
	PUTC($0x00)
	PUTC($0x65)
	PUTC($0x6e)
	PUTC($0x74)
	PUTC($0x72)
	PUTC($0x79)
	PUTC($0x0a)
	// record: channel 1, 6 bytes, 'hello\n'
	PUTC($0x01)
	PUTC($0x06)
	PUTC($0x00)
	PUTC($0x68)
	PUTC($0x65)
	PUTC($0x6c)
	PUTC($0x6c)
	PUTC($0x6f)
	PUTC($0x0a)
	// record: channel 2, 12 bytes, 'fake stderr\n'
	PUTC($0x02)
	PUTC($0x0c)
	PUTC($0x00)
	PUTC($0x66)
	PUTC($0x61)
	PUTC($0x6b)
	PUTC($0x65)
	PUTC($0x20)
	PUTC($0x73)
	PUTC($0x74)
	PUTC($0x64)
	PUTC($0x65)
	PUTC($0x72)
	PUTC($0x72)
	PUTC($0x0a)
	// record: channel 3, 20 bytes, 'log fake kernel log\n'
	PUTC($0x03)
	PUTC($0x14)
	PUTC($0x00)
	PUTC($0x6c)
	PUTC($0x6f)
	PUTC($0x67)
	PUTC($0x20)
	PUTC($0x66)
	PUTC($0x61)
	PUTC($0x6b)
	PUTC($0x65)
	PUTC($0x20)
	PUTC($0x6b)
	PUTC($0x65)
	PUTC($0x72)
	PUTC($0x6e)
	PUTC($0x65)
	PUTC($0x6c)
	PUTC($0x20)
	PUTC($0x6c)
	PUTC($0x6f)
	PUTC($0x67)
	PUTC($0x0a)
	// record: channel 3, 7 bytes, 'exit 7\n'
	PUTC($0x03)
	PUTC($0x07)
	PUTC($0x00)
	PUTC($0x65)
	PUTC($0x78)
	PUTC($0x69)
	PUTC($0x74)
	PUTC($0x20)
	PUTC($0x37)
	PUTC($0x0a)
	BL drain<>(SB)
	SEMIEXIT(exit7<>)
	B 0(PC)

// ModulesA64: the modules container (docs/contract.md) where QEMU loads -initrd for a small
// Image and 1 GiB of RAM: RAM + min(RAM/2, 128 MiB) = 0x4800_0000 (hw/arm/boot.c,
// arm_setup_direct_kernel_boot). Prints one stdout record: the first 8 bytes of module 0 and of
// module 1, each followed by "\n" ("GMPOSARG\n07070100\n" from the runner: the argument
// module's magic, a cpio newc header's), then "exit 0". No container: "no container\n", exit
// 3; a count other than 2: "count is not 2\n", exit 3.
TEXT ·ModulesA64(SB), NOSPLIT|NOFRAME, $0
	BL uartinit<>(SB)
	PUTC($0x1b)
	PUTC($0x5d)
	PUTC($0x67)
	PUTC($0x6d)
	PUTC($0x70)
	PUTC($0x6f)
	PUTC($0x73)
	PUTC($0x2d)
	PUTC($0x73)
	PUTC($0x74)
	PUTC($0x61)
	PUTC($0x72)
	PUTC($0x74)
	PUTC($0x07)
	MOVD $0x48000000, R20
	MOVWU 0(R20), R1
	MOVW $0x4f504d47, R2 // "GMPO"
	CMPW R1, R2
	BNE nocontainer
	MOVWU 4(R20), R1
	MOVW $0x444f4d53, R2 // "SMOD"
	CMPW R1, R2
	BNE nocontainer
	MOVWU 8(R20), R1
	CMPW $2, R1
	BNE badcount
	// record: channel 1, 18 bytes
	PUTC($1)
	PUTC($18)
	PUTC($0)
	MOVWU 16(R20), R21 // module 0's offset (low half of the u64)
	ADD R20, R21, R21
	MOVWU 0(R21), R0
	BL putw<>(SB)
	MOVWU 4(R21), R0
	BL putw<>(SB)
	PUTC($0x0a)
	MOVWU 32(R20), R21 // module 1's offset
	ADD R20, R21, R21
	MOVWU 0(R21), R0
	BL putw<>(SB)
	MOVWU 4(R21), R0
	BL putw<>(SB)
	PUTC($0x0a)
	// record: channel 3, 7 bytes, 'exit 0\n'
	PUTC($0x03)
	PUTC($0x07)
	PUTC($0x00)
	PUTC($0x65)
	PUTC($0x78)
	PUTC($0x69)
	PUTC($0x74)
	PUTC($0x20)
	PUTC($0x30)
	PUTC($0x0a)
	BL drain<>(SB)
	SEMIEXIT(exit0<>)
	B 0(PC)
nocontainer:
	// record: channel 1, 13 bytes, 'no container\n'
	PUTC($0x01)
	PUTC($0x0d)
	PUTC($0x00)
	PUTC($0x6e)
	PUTC($0x6f)
	PUTC($0x20)
	PUTC($0x63)
	PUTC($0x6f)
	PUTC($0x6e)
	PUTC($0x74)
	PUTC($0x61)
	PUTC($0x69)
	PUTC($0x6e)
	PUTC($0x65)
	PUTC($0x72)
	PUTC($0x0a)
	BL drain<>(SB)
	SEMIEXIT(exit3<>)
	B 0(PC)
badcount:
	// record: channel 1, 15 bytes, 'count is not 2\n'
	PUTC($0x01)
	PUTC($0x0f)
	PUTC($0x00)
	PUTC($0x63)
	PUTC($0x6f)
	PUTC($0x75)
	PUTC($0x6e)
	PUTC($0x74)
	PUTC($0x20)
	PUTC($0x69)
	PUTC($0x73)
	PUTC($0x20)
	PUTC($0x6e)
	PUTC($0x6f)
	PUTC($0x74)
	PUTC($0x20)
	PUTC($0x32)
	PUTC($0x0a)
	BL drain<>(SB)
	SEMIEXIT(exit3<>)
	B 0(PC)

// EchoA64: the marker and an "input" record, then every byte the UART receives back as a
// one-byte stdout record, until the bytes 0xFF 0x00 (the stdin stream's end of file; the
// runner's test sends no 0xFF of its own); then "exit 0".
TEXT ·EchoA64(SB), NOSPLIT|NOFRAME, $0
	BL uartinit<>(SB)
	PUTC($0x1b)
	PUTC($0x5d)
	PUTC($0x67)
	PUTC($0x6d)
	PUTC($0x70)
	PUTC($0x6f)
	PUTC($0x73)
	PUTC($0x2d)
	PUTC($0x73)
	PUTC($0x74)
	PUTC($0x61)
	PUTC($0x72)
	PUTC($0x74)
	PUTC($0x07)
	// record: channel 3, 6 bytes, 'input\n'
	PUTC($0x03)
	PUTC($0x06)
	PUTC($0x00)
	PUTC($0x69)
	PUTC($0x6e)
	PUTC($0x70)
	PUTC($0x75)
	PUTC($0x74)
	PUTC($0x0a)
	MOVD $UART, R20
	MOVW $0, R22 // the previous byte
rx:
	MOVWU UARTFR(R20), R10
	TBNZ $4, R10, rx // RXFE: nothing received yet
	MOVWU UARTDR(R20), R21
	ANDW $0xff, R21, R21 // bits 11:8 are error flags
	PUTC($1)
	PUTC($1)
	PUTC($0)
	MOVW R21, R0
	BL putc<>(SB)
	CBNZW R21, notend
	CMPW $0xff, R22
	BEQ end
notend:
	MOVW R21, R22
	B rx
end:
	// record: channel 3, 7 bytes, 'exit 0\n'
	PUTC($0x03)
	PUTC($0x07)
	PUTC($0x00)
	PUTC($0x65)
	PUTC($0x78)
	PUTC($0x69)
	PUTC($0x74)
	PUTC($0x20)
	PUTC($0x30)
	PUTC($0x0a)
	BL drain<>(SB)
	SEMIEXIT(exit0<>)
	B 0(PC)
