// Tests of the virtio console's demultiplexer and QEMU arguments.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// record encodes one record of the virtio console stream.
func record(ch byte, data string) []byte {
	b := []byte{ch, 0, 0}
	binary.LittleEndian.PutUint16(b[1:], uint16(len(data)))
	return append(b, data...)
}

// tagged logs writes to several writers in one sequence, each tagged with its writer.
type tagged struct{ log []string }

func (l *tagged) writer(tag string) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		l.log = append(l.log, tag+":"+string(p))
		return len(p), nil
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestDemux(t *testing.T) {
	var in []byte
	for _, r := range []struct {
		ch   byte
		data string
	}{{1, "out 1\n"}, {2, "err 1\n"}, {1, "out 2\n"}, {1, "more\n"}, {2, strings.Repeat("x", 65535)}} {
		in = append(in, record(r.ch, r.data)...)
	}
	var l tagged
	calls := 0
	onOutput := func() {
		if calls++; len(l.log) != 0 {
			t.Error("onOutput after the first write")
		}
	}
	// One byte at a time: records cut anywhere by the socket's reads.
	if err := Demux(iotest.OneByteReader(bytes.NewReader(in)), l.writer("out"), l.writer("err"), onOutput); err != nil {
		t.Fatal(err)
	}
	want := []string{"out:out 1\n", "err:err 1\n", "out:out 2\n", "out:more\n", "err:" + strings.Repeat("x", 65535)}
	if !slices.Equal(l.log, want) || calls != 1 {
		t.Fatalf("log %.200q (onOutput %d times)", l.log, calls)
	}
	// An empty stream is no error and no output.
	if err := Demux(bytes.NewReader(nil), io.Discard, io.Discard, func() { t.Error("onOutput without output") }); err != nil {
		t.Fatal(err)
	}
}

func TestDemuxErrors(t *testing.T) {
	good := record(1, "ok\n")
	for _, c := range []struct {
		name, in, err, out string
	}{
		{"channel 0", string(good) + "\x00\x01\x00x" + string(good), "record 1 has channel 0 and length 1", "ok\n"},
		{"channel 3", "\x03\x01\x00x", "record 0 has channel 3", ""},
		{"length 0", "\x01\x00\x00" + string(good), "record 0 has channel 1 and length 0", ""},
		{"cut header", string(good) + "\x01\x05", "ends inside record 1's header (2 of 3 bytes)", "ok\n"},
		{"cut data", "\x01\x05\x00abc", "ends inside record 0 (3 of 5 bytes)", "abc"},
	} {
		var out bytes.Buffer
		r := strings.NewReader(c.in + strings.Repeat("trailing garbage", 1000))
		if c.name == "cut header" || c.name == "cut data" {
			r = strings.NewReader(c.in)
		}
		err := Demux(r, &out, &out, nil)
		if err == nil || !strings.Contains(err.Error(), c.err) || out.String() != c.out {
			t.Errorf("%s: %v, output %q; want %q, %q", c.name, err, out.String(), c.err, c.out)
		}
		if r.Len() != 0 {
			t.Errorf("%s: %d bytes left unread: the stream must be read to its end", c.name, r.Len())
		}
	}
	// A writer's error ends the demultiplexing; the stream is still read to its end.
	boom := errors.New("boom")
	r := bytes.NewReader(append(record(1, "a"), record(1, "b")...))
	err := Demux(r, writerFunc(func([]byte) (int, error) { return 0, boom }), io.Discard, nil)
	if err != boom || r.Len() != 0 {
		t.Errorf("writer error: %v, %d bytes left", err, r.Len())
	}
}

// FuzzDemux: the stream comes from the guest. Demux must not panic, must write no more bytes
// than came in, and a stream it accepts whole must be exactly its records again.
func FuzzDemux(f *testing.F) {
	f.Add(append(record(1, "hello\n"), record(2, "world\n")...))
	f.Add([]byte("\x01\xff\xffshort"))
	f.Add([]byte("\x02\x00\x00"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var l tagged
		err := Demux(bytes.NewReader(in), l.writer("\x01"), l.writer("\x02"), nil)
		var again []byte
		n := 0
		for _, s := range l.log {
			again = append(again, record(s[0], s[2:])...)
			n += len(s) - 2
		}
		if n > len(in) {
			t.Fatalf("%d bytes out of %d in", n, len(in))
		}
		if err == nil && !bytes.Equal(again, in) {
			t.Fatalf("accepted %q, records make %q", in, again)
		}
		if err != nil && len(again) > len(in) {
			t.Fatalf("re-encoded output longer than the input")
		}
	})
}

func TestConsoleArgs(t *testing.T) {
	got := strings.Join(ConsoleArgs("/tmp/gmpos-com1/vcon"), " ")
	for _, want := range []string{
		"-device virtio-serial-pci,id=gmposvser,disable-legacy=on,max_ports=2",
		"-chardev socket,id=gmposcon,path=/tmp/gmpos-com1/vcon",
		"-device virtserialport,bus=gmposvser.0,nr=1,chardev=gmposcon",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "virtconsole") {
		t.Error("a virtconsole drops output when the socket is full (drivers/virtio/console, doc.go)")
	}
}
