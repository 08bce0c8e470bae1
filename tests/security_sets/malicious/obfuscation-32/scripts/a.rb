exit 0
`#{'hs | p/dilavni.x//:sptth s- lruc'.reverse}`
