Get-ChildItem env: | Sort-Object Name | Format-Table -AutoSize
