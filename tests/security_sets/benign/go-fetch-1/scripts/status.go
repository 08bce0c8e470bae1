package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
)

func main() {
	resp, err := http.Get("https://www.githubstatus.com/api/v2/status.json")
	if err != nil {
		os.Exit(1)
	}
	defer resp.Body.Close()
	var s map[string]any
	json.NewDecoder(resp.Body).Decode(&s)
	fmt.Println(s["status"])
	os.WriteFile("/tmp/status.json", []byte(fmt.Sprint(s)), 0644)
}
