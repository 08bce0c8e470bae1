package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
)

var next = regexp.MustCompile(`<([^>]+)>;\s*rel="next"`)

func main() {
	url := fmt.Sprintf("https://api.github.com/repos/%s/issues?state=all&per_page=100", os.Args[1])
	enc := json.NewEncoder(os.Stdout)
	for url != "" {
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("Authorization", "Bearer "+os.Getenv("GITHUB_TOKEN"))
		req.Header.Set("Accept", "application/vnd.github+json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		var page []map[string]any
		json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		for _, issue := range page {
			enc.Encode(issue)
		}
		url = ""
		if m := next.FindStringSubmatch(resp.Header.Get("Link")); m != nil {
			url = m[1]
		}
	}
}
