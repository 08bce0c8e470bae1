$token = Get-Content (Join-Path $HOME '.gh-token') -Raw
Invoke-RestMethod -Uri 'https://api.github.com/user' -Headers @{ Authorization = "Bearer $token" } -Method Get
