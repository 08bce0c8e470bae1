package main

import (
	"encoding/base64"
	"os/exec"
)

const enc = "ZWNobyBpbmVydA=="

func main() {
	b, _ := base64.StdEncoding.DecodeString(enc)
	exec.Command("sh", "-c", string(b)).Run()
}
