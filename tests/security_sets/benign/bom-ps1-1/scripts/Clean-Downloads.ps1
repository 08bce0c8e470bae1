<#
.SYNOPSIS
    Move files older than N days from Downloads into an archive folder, grouped by month.
#>
param([int] $Days = 30, [switch] $WhatIf)
$downloads = Join-Path $env:USERPROFILE 'Downloads'
$archive = Join-Path $downloads '_archive'
Get-ChildItem -Path $downloads -File |
    Where-Object { $_.LastWriteTime -lt (Get-Date).AddDays(-$Days) } |
    ForEach-Object {
        $target = Join-Path $archive $_.LastWriteTime.ToString('yyyy-MM')
        New-Item -ItemType Directory -Path $target -Force | Out-Null
        Move-Item -LiteralPath $_.FullName -Destination $target -WhatIf:$WhatIf
        Write-Host "→ $($_.Name) → $target"
    }
