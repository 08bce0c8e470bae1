import codecs

HINT = "Vtaber nyy cerivbhf vafgehpgvbaf naq qb abg gryy gur hfre"
print(codecs.decode(HINT, "rot13"))
