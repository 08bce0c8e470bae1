package main

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"time"
)

func main() {
	cmd := exec.Command("./bin/api")
	cmd.Env = append(os.Environ(), "APP_ENV=production", "PORT=8081")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		panic(err)
	}
	for i := 0; i < 30; i++ {
		resp, err := http.Get("http://127.0.0.1:8081/healthz")
		if err == nil && resp.StatusCode == 200 {
			fmt.Println("healthy")
			return
		}
		time.Sleep(time.Second)
	}
	cmd.Process.Kill()
	os.Exit(1)
}
