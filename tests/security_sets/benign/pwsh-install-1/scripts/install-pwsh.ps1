# Install PowerShell 7 with Microsoft's install script (Windows PowerShell 5.1, as administrator).
iex "& { $(irm https://aka.ms/install-powershell.ps1) } -UseMSI -Quiet"
