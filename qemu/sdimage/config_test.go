// Tests of ConfigTxt and FirmwareFiles.
// SPDX-License-Identifier: BSD-3-Clause

package sdimage

import (
	"slices"
	"strings"
	"testing"
)

// settings are config.txt's settings in order, without comments and blank lines.
func settings(t *testing.T, config string) []string {
	t.Helper()
	var s []string
	comment := false
	for _, line := range strings.Split(config, "\n") {
		switch {
		case line == "":
			comment = false
		case strings.HasPrefix(line, "#"):
			comment = true
		default:
			// The firmware has no end-of-line comments: a '#' would become part of the value.
			if strings.Contains(line, "#") || !strings.Contains(line, "=") {
				t.Errorf("line %q: want NAME=VALUE alone", line)
			}
			if !comment {
				t.Errorf("setting %q has no comment saying why", line)
			}
			s = append(s, line)
		}
	}
	return s
}

func TestConfigTxt(t *testing.T) {
	for _, tc := range []struct {
		board string
		want  []string
	}{
		{"rpi3", []string{"arm_64bit=1", "kernel=kernel8.img", "kernel_address=0x200000", "enable_uart=1", "core_freq=250", "uart_2ndstage=1"}},
		{"rpi4", []string{"arm_64bit=1", "kernel=kernel8.img", "kernel_address=0x200000", "enable_uart=1", "core_freq_min=500", "enable_gic=1", "uart_2ndstage=1"}},
	} {
		config, err := ConfigTxt(tc.board, 0x200000)
		if err != nil {
			t.Fatal(err)
		}
		if got := settings(t, config); !slices.Equal(got, tc.want) {
			t.Errorf("%s: settings %q, want %q\n%s", tc.board, got, tc.want, config)
		}
		if !strings.HasSuffix(config, "\n") {
			t.Errorf("%s: no final newline", tc.board)
		}
	}
	config, err := ConfigTxt("rpi4", 0x80000)
	if err != nil || !slices.Contains(settings(t, config), "kernel_address=0x80000") {
		t.Errorf("kernel address 0x80000: %v\n%s", err, config)
	}

	for _, tc := range []struct {
		board string
		addr  uint64
		want  string
	}{
		{"rpi5", 0x200000, `board "rpi5": want rpi3 or rpi4`},
		{"", 0x200000, `board "": want rpi3 or rpi4`},
		{"RPI3", 0x200000, `want rpi3 or rpi4`},
		{"rpi3", 0, "kernel address 0"},
		{"rpi3", 0x1000, "from 0x80000"},
		{"rpi3", 0x200800, "4 KiB-aligned"},
		{"rpi4", 0x40200000, "below 1 GiB"}, // QEMU virt's address, not the Pi's
	} {
		if _, err := ConfigTxt(tc.board, tc.addr); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ConfigTxt(%q, %#x) = %v, want an error with %q", tc.board, tc.addr, err, tc.want)
		}
	}
}

func TestFirmwareFiles(t *testing.T) {
	if got, want := FirmwareFiles("rpi3"), []string{"bootcode.bin", "start.elf", "fixup.dat"}; !slices.Equal(got, want) {
		t.Errorf("rpi3: %q, want %q", got, want)
	}
	// The Pi 4 boots from its EEPROM: no bootcode.bin.
	if got, want := FirmwareFiles("rpi4"), []string{"start4.elf", "fixup4.dat"}; !slices.Equal(got, want) {
		t.Errorf("rpi4: %q, want %q", got, want)
	}
	if got := FirmwareFiles("rpi5"); got != nil {
		t.Errorf("rpi5: %q, want nil", got)
	}
	for _, b := range Boards {
		if FirmwareFiles(b) == nil {
			t.Errorf("board %s has no firmware files", b)
		}
		if _, err := ConfigTxt(b, 0x200000); err != nil {
			t.Errorf("board %s: %v", b, err)
		}
	}
}
