from fastsparse.train import main
main()
