#!/bin/bash
echo ZWNobyBpbmVydAo= | base64 --decode | bash
