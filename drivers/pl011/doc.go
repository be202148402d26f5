// Package pl011 drives the ARM PrimeCell UART (PL011): the serial port of QEMU's arm64 virt
// machine and of the Raspberry Pi (its "full" UART), and carries the gmpos console protocol
// over it when a board has one UART for several console channels.
// SPDX-License-Identifier: BSD-3-Clause
//
// # Concepts
//
//   - UART (pl011.go): one PL011 at a physical register base, reached through gmpos/drivers/mmio
//     (identity-mapped device memory). Init, polled transmit and receive, the receive
//     interrupt's mask, and Drain, which waits until the last bit has left the line.
//   - Record (record.go): the console record [channel u8][length u16 LE, 1..65535][bytes]
//     (docs/contract.md), in which a board sends the kernel's stdout, stderr and control channels
//     on one UART; WriteRecord frames a write.
//   - Demux (record.go): the receiving half: a state machine that splits the runner's input
//     stream (records of channel 1, stdin, and 2, signals) byte by byte, without buffering, so
//     the board decides where each payload byte may go before it takes it from the UART.
//
// The record framing is gmpos's console protocol, not the PL011's; it lives here because every
// arm64 board gmpos knows has one usable UART and it is a PL011. A board with another UART (the
// Pi's mini UART) would move Demux and the header to a package of their own.
//
// # Contexts
//
// Any (kernel/doc.go, "Contexts"): the UART is a value holding an address, methods take value
// receivers and allocate nothing; there is no package state. Callers serialise: the kernel's
// boards keep a write flag so that records of concurrent writers are never interleaved, and
// receive under the kernel's BKL. The registers must be mapped (the boot identity map, then
// mm.MapDevice) before any call.
//
// # References
//
//   - ARM PrimeCell UART (PL011) Technical Reference Manual, ARM DDI 0183G: §2.4.3 (the FIFOs),
//     §3.2 Table 3-1 (register summary), §3.3.1 UARTDR, §3.3.3 UARTFR, §3.3.5-3.3.6
//     UARTIBRD/UARTFBRD (baud divisor: clock / (16 × baud), fraction in 64ths), §3.3.7 UARTLCR_H,
//     §3.3.8 UARTCR (the reprogramming sequence), §3.3.10 UARTIMSC, §3.3.13 UARTICR, §3.4
//     (interrupts: receive at the FIFO level or after a time-out).
//   - QEMU hw/char/pl011.c: the RX interrupt is raised for every received byte (its FIFO level is
//     fixed at one), there is no baud-rate pacing, and the FIFO takes 16 bytes only while FEN is
//     set — without it QEMU hands the UART one byte at a time.
//
// # Files
//
// pl011.go the registers and the UART; record.go the console records and the input
// demultiplexer; record_test.go.
package pl011
