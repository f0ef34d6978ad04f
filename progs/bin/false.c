/* false: status 1, whatever its arguments. */
int main(void)
{
	return 1;
}
