// rbfnet command line entry point (placeholder).
int main() { return 0; }
