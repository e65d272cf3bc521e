print("rlskit")
