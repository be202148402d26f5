// Tests of the platforms' layouts and of the Image with its modules appended.
// SPDX-License-Identifier: BSD-3-Clause

package boot

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

func TestArm64Platforms(t *testing.T) {
	if Arm64Virt.LinkFlags() != Arm64LinkFlags || Arm64Virt.LoadAddr() != Arm64LoadAddr || Arm64Virt.LinkBase() != Arm64LinkBase {
		t.Errorf("virt: %s, load %#x", Arm64Virt.LinkFlags(), Arm64Virt.LoadAddr())
	}
	// docs/contract.md, "Raspberry Pi": kernel_address 0x20_0000, .text at 0x20_2000.
	if Arm64RPi.LinkFlags() != "-T 0x202000 -R 0x1000" || Arm64RPi.LoadAddr() != 0x20_0000 {
		t.Errorf("rpi: %s, load %#x", Arm64RPi.LinkFlags(), Arm64RPi.LoadAddr())
	}
	// The virt binary is not an rpi one: the link base is checked exactly.
	if _, err := Arm64RPi.Make(tinyArm64(t)); err == nil || !strings.Contains(err.Error(), "0x201000") {
		t.Errorf("a virt-linked ELF made an rpi Image: %v", err)
	}
}

func TestAppendModules(t *testing.T) {
	img, err := MakeArm64(tinyArm64(t))
	if err != nil {
		t.Fatal(err)
	}
	end := len(img.Data)
	container := bytes.Repeat([]byte("GMPOSMOD"), 1000)
	if err := img.AppendModules(container, Arm64LocRecords); err != nil {
		t.Fatal(err)
	}
	h, err := DecodeArm64Header(img.Data)
	if err != nil {
		t.Fatal(err)
	}
	off := uint64(end+arm64PageSize-1) &^ (arm64PageSize - 1)
	if h.ImageSize != (off+uint64(len(container))+arm64PageSize-1)&^(arm64PageSize-1) || h.ImageSize%arm64PageSize != 0 {
		t.Errorf("image_size %#x for a container at %#x", h.ImageSize, off)
	}
	if err := h.Validate(int64(len(img.Data))); err != nil {
		t.Error(err)
	}
	loc := img.Data[Arm64LocatorOffset : Arm64LocatorOffset+Arm64LocatorSize]
	le := binary.LittleEndian
	if string(loc[:8]) != Arm64LocatorMagic || le.Uint32(loc[8:]) != Arm64LocRecords || le.Uint64(loc[16:]) != off || le.Uint64(loc[24:]) != uint64(len(container)) {
		t.Errorf("locator % x", loc)
	}
	if !bytes.Equal(img.Data[off:off+uint64(len(container))], container) {
		t.Error("the container's bytes")
	}
	if img.Data[0] == 0 || !bytes.Equal(img.Data[Arm64LocatorOffset+Arm64LocatorSize:Arm64LocatorOffset+Arm64LocatorSize+16], make([]byte, 16)) {
		t.Error("the header page around the locator")
	}
	if err := img.AppendModules(nil, 0); err == nil {
		t.Error("an empty container was appended")
	}
}
