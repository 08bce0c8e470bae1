package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"time"
)

func listening(addr string) bool {
	conn, err := net.DialTimeout("tcp", addr, 500*time.Millisecond)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

func main() {
	if len(os.Args) < 2 {
		fmt.Println("usage: render FILE.docx")
		os.Exit(2)
	}
	if listening("127.0.0.1:2002") {
		fmt.Println("a LibreOffice listener is already up")
	}
	cmd := exec.Command("soffice", "--headless", "--convert-to", "pdf", os.Args[1])
	cmd.Env = append(os.Environ(), "SAL_USE_VCLPLUGIN=svp")
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Println("conversion failed:", err)
		os.Exit(1)
	}
	out := exec.Command("pdftoppm", "-png", "-r", "80", "report.pdf", "report")
	out.Env = os.Environ()
	_ = out.Run()
}
