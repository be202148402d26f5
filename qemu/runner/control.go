// Control records on COM3 (docs/contract.md, "QEMU machine the kernel expects").
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Record is one line of the kernel's control channel.
type Record struct {
	Kind string    // "entry", "log", "exit", "panic", or anything newer
	Text string    // the rest of the line
	Code int       // for "exit": the status 0..255
	At   time.Time // host time the line was complete
}

// ParseRecord parses one COM3 line (without its newline). Unknown kinds
// are returned as they are, so a newer kernel does not break the runner.
func ParseRecord(line string) (Record, error) {
	line = strings.TrimRight(line, "\r")
	kind, text, _ := strings.Cut(line, " ")
	r := Record{Kind: kind, Text: text}
	switch kind {
	case "":
		return r, fmt.Errorf("empty control record")
	case "exit":
		n, err := strconv.Atoi(text)
		if err != nil || n < 0 || n > 255 {
			return r, fmt.Errorf("control record %q: exit status must be 0..255", line)
		}
		r.Code = n
	}
	return r, nil
}

// Exit codes of the runner (docs/contract.md, "Runner exit codes").
const (
	ExitKernelPanic = 101 // kernel panic or fault report
	ExitTimeout     = 124 // -timeout expired; QEMU was killed
	ExitRunnerError = 125 // QEMU or the runner failed, or the guest reset without an exit record
)

// Outcome is what is known when QEMU has gone.
type Outcome struct {
	Records  []Record
	Status   int  // QEMU's exit status (-1 if it was killed by a signal)
	TimedOut bool // the runner killed QEMU at the deadline
	// Semihosting: the guest ends QEMU through Arm semihosting's SYS_EXIT (arm64), so QEMU's
	// status is the guest's own 0..255, not isa-debug-exit's (v<<1)|1.
	Semihosting bool
}

// ExitCode maps an Outcome to the runner's exit code and, when the mapping
// is not the plain "exit n" case, a one-line explanation for stderr.
//
// Precedence: timeout; the first exit record (the full 0..255 status);
// a panic record; otherwise the value the guest wrote to isa-debug-exit,
// which QEMU reports as (v<<1)|1 (qemu.md) — except status 1, which QEMU
// also uses for its own errors and is therefore ambiguous; anything else
// (0 after a reset with -no-reboot, a crash) is 125. With Semihosting the
// status is the guest's itself: any but 0 and 1 (ambiguous: a reset or
// PSCI SYSTEM_OFF also ends QEMU with 0, QEMU's errors with 1) is taken.
func ExitCode(o Outcome) (code int, why string) {
	if o.TimedOut {
		return ExitTimeout, "timeout: guest did not exit in time; QEMU killed"
	}
	for _, r := range o.Records {
		if r.Kind == "exit" {
			want := (r.Code&0x7f)<<1 | 1
			if o.Semihosting {
				want = r.Code
			}
			if o.Status != want && o.Status >= 0 {
				return r.Code, fmt.Sprintf("note: exit record %d but QEMU exit status %d (expected %d)", r.Code, o.Status, want)
			}
			return r.Code, ""
		}
	}
	for _, r := range o.Records {
		if r.Kind == "panic" {
			return ExitKernelPanic, "kernel panic: " + r.Text
		}
	}
	if o.Semihosting {
		switch o.Status {
		case 0:
			return ExitRunnerError, "guest stopped without an exit record (semihosting exit 0, PSCI SYSTEM_OFF, or a reset: QEMU runs with -no-reboot)"
		case 1:
			return ExitRunnerError, "QEMU exited with status 1 (its own error, or the guest's exit 1) and the guest sent no exit record"
		case -1:
			return ExitRunnerError, "QEMU was killed by a signal"
		}
		return o.Status, fmt.Sprintf("note: guest exited through semihosting with %d but sent no exit record", o.Status)
	}
	if o.Status > 1 && o.Status&1 == 1 {
		v := o.Status >> 1
		return v, fmt.Sprintf("note: guest exited through isa-debug-exit with %d but sent no exit record", v)
	}
	switch o.Status {
	case 0:
		return ExitRunnerError, "guest stopped without an exit record (reset or triple fault; QEMU runs with -no-reboot)"
	case -1:
		return ExitRunnerError, "QEMU was killed by a signal"
	}
	return ExitRunnerError, fmt.Sprintf("QEMU failed with status %d and the guest sent no exit record", o.Status)
}
