// Package reccon is the record console of the arm64 boards (gmpos/kernel/board/virt,
// gmpos/kernel/board/rpi): the kernel's three output channels (stdout, stderr, control) and the
// runner's two input channels (stdin, signals) multiplexed as records on one PL011
// (gmpos/drivers/pl011, record.go; docs/contract.md, "arm64"). The PC has a port per channel
// (COM1-COM3) and needs none of this.
//
// Who calls what: the board owns one Console, sets its UART and IRQ while probing, calls Start
// in EarlyInit, and forwards the contract's ConsoleWrite, ConsoleInputIRQ, ConsoleInputEnable
// and ConsoleRead to Write, InputIRQ, InputEnable and Read, and Exit to Drain.
//
// Contexts: every method may run in trap context — no allocation, no write barriers (a Console
// holds no Go pointers). Output is serialized by the Console's atomic write flag (console.go);
// input state is protected by the kernel's BKL, which the callers of InputEnable and Read hold.
package reccon
