/* true: status 0, whatever its arguments. */
int main(void)
{
	return 0;
}
