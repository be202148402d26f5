// The console: the record console on virt's one PL011 (gmpos/kernel/board/internal/reccon).
// SPDX-License-Identifier: BSD-3-Clause

package virt

// virt has one UART, the PL011 the device tree names, and every console channel travels on it
// as records; reccon.Console does the framing, the input demultiplexing and the write flag.

const consoleControl = 3

// ConsoleWrite sends p on console channel ch (1 stdout, 2 stderr, 3 control) as records. Any
// context.
func (b *Board) ConsoleWrite(ch int, p []byte) { b.con.Write(ch, p) }

// ConsoleInputIRQ is the PL011's line for stdin (1) and signals (2); -1 otherwise or if the
// tree gave no usable line.
func (b *Board) ConsoleInputIRQ(ch int) int { return b.con.InputIRQ(ch) }

// ConsoleInputEnable turns channel ch's input on or off. Interrupt or trap context.
func (b *Board) ConsoleInputEnable(ch int, on bool) { b.con.InputEnable(ch, on) }

// ConsoleRead takes one byte of channel ch's records; ok false if none can be had now.
// Interrupt or trap context.
func (b *Board) ConsoleRead(ch int) (c byte, ok bool) { return b.con.Read(ch) }
