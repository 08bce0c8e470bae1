package main

import (
	"flag"
	"log"
	"os"
	"os/exec"
	"strings"
)

func main() {
	prod := flag.Bool("prod", false, "allow a production database")
	flag.Parse()
	url := os.Getenv("DATABASE_URL")
	if url == "" {
		log.Fatal("DATABASE_URL is not set")
	}
	if strings.Contains(url, "prod") && !*prod {
		log.Fatal("refusing a production database without -prod")
	}
	args := append([]string{"-path", "migrations", "-database", url}, flag.Args()...)
	cmd := exec.Command("migrate", args...)
	cmd.Env = os.Environ()
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatal(err)
	}
}
