/* An OpenMP program that does nothing: hcrun's start-up and shutdown. */
int main(void)
{
    return 0;
}
