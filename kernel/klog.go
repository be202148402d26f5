package kernel

import (
	"github.com/usbarmory/tamago/soc/intel/uart"

	kuart "gmpos/drivers/uart"
)

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

func (k *kbuf) d(v int64) *kbuf {
	if v < 0 {
		k.c('-')
		v = -v
	}
	var tmp [20]byte
	i := len(tmp)
	for {
		i--
		tmp[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return k.bytes(tmp[i:])
}

func (k *kbuf) to(p *uart.UART) {
	for i := 0; i < k.n; i++ {
		p.Tx(k.b[i])
	}
	k.n = 0
}

// klogRecord sends one control-channel record (docs/contract.md): "log ...", "exit N", "panic ...".
func (k *kbuf) record() {
	k.c('\n')
	k.to(&kuart.Control)
}

// klog writes a "log" record.
func klog(msg string) {
	var k kbuf
	k.s("log ").s(msg).record()
}
