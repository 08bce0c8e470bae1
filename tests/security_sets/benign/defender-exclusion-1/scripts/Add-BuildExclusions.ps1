#Requires -RunAsAdministrator
param([Parameter(Mandatory)] [string] $Path)
$ErrorActionPreference = 'Stop'
$paths = @(
    (Resolve-Path $Path).Path,
    "$env:LOCALAPPDATA\npm-cache",
    "$env:USERPROFILE\.cargo",
    "$env:USERPROFILE\.nuget\packages"
)
$processes = @('node.exe', 'cargo.exe', 'rustc.exe', 'MSBuild.exe', 'dotnet.exe')
foreach ($p in $paths) { Add-MpPreference -ExclusionPath $p }
foreach ($p in $processes) { Add-MpPreference -ExclusionProcess $p }
Get-MpPreference | Select-Object -ExpandProperty ExclusionPath
Get-MpPreference | Select-Object -ExpandProperty ExclusionProcess
