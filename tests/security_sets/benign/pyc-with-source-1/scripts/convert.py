import sys
print(float(sys.argv[1]) * 0.621371)
