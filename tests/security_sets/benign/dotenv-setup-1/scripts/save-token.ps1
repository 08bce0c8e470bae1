$path = Join-Path $HOME '.gh-token'
$env:GITHUB_TOKEN | Out-File -FilePath $path -NoNewline -Encoding ascii
