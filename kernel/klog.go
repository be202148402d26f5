// Allocation-free kernel output: kbuf and the control channel's log records.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

// kbuf formats one line of kernel output without allocating: the kernel prints from trap context
// and before the Go runtime exists, so fmt and strconv are off limits (both allocate).
type kbuf struct {
	b [512]byte
	n int
}

func (k *kbuf) s(s string) *kbuf {
	for i := 0; i < len(s) && k.n < len(k.b); i++ {
		k.b[k.n] = s[i]
		k.n++
	}
	return k
}

func (k *kbuf) bytes(b []byte) *kbuf {
	for i := 0; i < len(b) && k.n < len(k.b); i++ {
		k.b[k.n] = b[i]
		k.n++
	}
	return k
}

func (k *kbuf) c(c byte) *kbuf {
	if k.n < len(k.b) {
		k.b[k.n] = c
		k.n++
	}
	return k
}

// hex appends v as 0x-prefixed, zero-padded 16-digit hexadecimal.
func (k *kbuf) hex(v uint64) *kbuf {
	k.s("0x")
	for i := 60; i >= 0; i -= 4 {
		k.c("0123456789abcdef"[v>>uint(i)&0xf])
	}
	return k
}

// x appends v in hexadecimal without padding.
func (k *kbuf) x(v uint64) *kbuf {
	k.s("0x")
	started := false
	for i := 60; i >= 0; i -= 4 {
		d := v >> uint(i) & 0xf
		if d != 0 || started || i == 0 {
			k.c("0123456789abcdef"[d])
			started = true
		}
	}
	return k
}

// hexBytes appends each byte of b as two hex digits, each preceded by sep.
func (k *kbuf) hexBytes(b []byte, sep string) *kbuf {
	for _, c := range b {
		k.s(sep).c("0123456789abcdef"[c>>4]).c("0123456789abcdef"[c&15])
	}
	return k
}

// d appends v in decimal.
func (k *kbuf) d(v int64) *kbuf {
	u := uint64(v)
	if v < 0 {
		k.c('-')
		u = -u // also right for the most negative int64
	}
	var tmp [20]byte
	i := len(tmp)
	for {
		i--
		tmp[i] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			break
		}
	}
	return k.bytes(tmp[i:])
}

// to sends the line to console channel ch and empties k. Text for stdout and stderr takes the
// virtio console when this core may use it, so that it stays in order with the program's
// output (vconKernelWrite); the rest, and the control channel, goes to the board's console.
func (k *kbuf) to(ch int) {
	p := k.b[:k.n]
	if ch == consoleStdout || ch == consoleStderr {
		p = vconKernelWrite(ch, p)
	}
	board.ConsoleWrite(ch, p)
	k.n = 0
}

// record sends k as one control-channel record (docs/contract.md): "log ...", "exit N",
// "panic ...", "trace ...". An "exit" or "panic" record is the machine's last: the virtio
// console's ring is flushed first, as QEMU drops what is still in it when it exits.
func (k *kbuf) record() {
	k.c('\n')
	if k.startsWith("exit ") || k.startsWith("panic ") {
		vconFlush()
	}
	k.to(consoleControl)
}

// startsWith reports whether the line so far begins with s.
func (k *kbuf) startsWith(s string) bool { return k.n >= len(s) && string(k.b[:len(s)]) == s }

// klog writes a "log" record.
func klog(msg string) {
	var k kbuf
	k.s("log ").s(msg).record()
}

// klogOnce logs msg the first time *seen is false.
func klogOnce(seen *bool, msg string) {
	if !*seen {
		*seen = true
		klog(msg)
	}
}
